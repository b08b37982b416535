import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import {
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CONFIG_DIGEST_IDENTIFIER,
  EMBEDDED_CONFIG_FILE,
  type EmbeddedConfig,
  embedConfig,
} from '../shared/config/embedded';
import { readsSource } from '../shared/config/sources';
import type { Config, SourceName } from '../shared/types/config';
import { InvalidPropError, MissingFileError } from './errors';
import { METRIC_NAMESPACE, SERVICE_NAME } from './metrics';

/** Entry file of each source's handler, relative to the functions folder (docs/architecture.md). */
export const FUNCTION_ENTRIES = {
  live_calls: 'live-calls.ts',
  payments: 'payments.ts',
} as const satisfies Record<SourceName, string>;

/** Entry file of the notifier's handler, relative to the functions folder. */
export const NOTIFIER_ENTRY = 'notifier.ts';

/** Name of the rules file inside the bundle, next to the handler, as written (for people). */
export const BUNDLED_CONFIG_NAME = 'telealert.yaml';

/**
 * The pollers' Node.js options: stack traces through the bundle's source map, so a bug's
 * stack in the logs names the source file and line. It costs about 8 MB of memory and some
 * milliseconds of a cold start (the map is read when the bundle loads); `npm run bench`
 * measures with it, as deployed.
 */
const POLLER_NODE_OPTIONS = '--enable-source-maps';

/**
 * The environment the runtime gives node in every poller, besides the stack's own variables;
 * `npm run bench` starts its measured processes with it, as deployed.
 * - `NODE_OPTIONS`: `POLLER_NODE_OPTIONS`.
 * - `MALLOC_MMAP_THRESHOLD_`: glibc's malloc serves blocks of 32 KiB and more with their own
 *   mapping, returned to the system when freed. By default the threshold floats up to the
 *   largest block freed so far, after which the buffers a 20 MB answer passes through (socket
 *   reads, compiler zones) come from the heap arena, which keeps its freed memory: the peak
 *   RSS of a 100k-payment poll under a 256 MB function's heap limits was 193-216 MB without
 *   it and 179-192 MB with it, at no measurable cost in processing or cold start.
 */
export const POLLER_ENVIRONMENT: Readonly<Record<string, string>> = {
  NODE_OPTIONS: POLLER_NODE_OPTIONS,
  MALLOC_MMAP_THRESHOLD_: '32768',
};

/** Time left between the end of a run and the next scheduled one, so runs do not overlap. */
export const TIMEOUT_MARGIN = Duration.seconds(5);
const LAMBDA_MAX_TIMEOUT_MS = 900_000;
const MIN_EVENT_AGE_MS = 60_000;
const MAX_EVENT_AGE_MS = 6 * 3_600_000;

/**
 * ESM has no `require`; some bundled CommonJS dependencies call it for Node built-ins.
 * esbuild's shim falls back to this one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __telealertCreateRequire } from 'node:module'; const require = __telealertCreateRequire(import.meta.url);";

/** The SDK's default credential chain, replaced in bundles that carry the SDK. */
export const CREDENTIAL_CHAIN_PACKAGE = '@aws-sdk/credential-provider-node';
/** Its replacement, relative to the functions folder. */
export const LAMBDA_CREDENTIALS_MODULE = 'adapters/lambda-credentials.ts';
/** node:http without the ES namespace that loads undici (see the module), relative likewise. */
export const NODE_HTTP_MODULE = 'adapters/node-http.ts';

/** The variable that tells a poller its sample queue (functions/runtime.ts reads it). */
export const SAMPLE_QUEUE_URL_ENV = 'TELEALERT_SAMPLE_QUEUE_URL';

/** Receives of one sample message before it goes to the dead-letter queue. */
const SAMPLE_MAX_RECEIVES = 5;

/** What every telealert function is built from: the rules, the bundle, the role, the limits. */
export interface HandlerFunctionProps {
  /** The validated rules file, copied into the bundle for people. Absolute path. */
  readonly configFile: string;
  /**
   * What `validateConfig` made of it: shipped beside the handler (`embedConfig`), which reads
   * it at cold start without validating again, and whose bundle carries its digest.
   */
  readonly config: Config;
  readonly functionsDir: string;
  readonly projectRoot: string;
  readonly depsLockFilePath: string;
  readonly role: IRole;
  readonly environment: Record<string, string>;
  readonly deadLetterQueue: IQueue;
  readonly memorySize: number;
  readonly logRetention: RetentionDays;
  readonly bundleAwsSdk: boolean;
  readonly reserveConcurrency: boolean;
}

export interface SourcePollerProps extends HandlerFunctionProps {
  readonly source: SourceName;
  /** How often the source is polled (the rules file's `sources.<source>.every`). */
  readonly everyMs: number;
  /**
   * Samples per run (`sources.live_calls.samples`). Above 1 the poller gets a sample queue:
   * the scheduled run takes the first sample and queues the others as delayed messages that
   * invoke it again at their slots, so no invocation is billed for waiting between samples.
   * @default 1
   */
  readonly samples?: number;
}

/** Lambda timeout for a source polled every `everyMs`: the period minus a margin. */
export function pollerTimeout(everyMs: number): Duration {
  return Duration.millis(
    Math.min(everyMs - TIMEOUT_MARGIN.toMilliseconds(), LAMBDA_MAX_TIMEOUT_MS),
  );
}

/** How long a queued invocation may wait before it is stale: one period, within Lambda's bounds. */
export function pollerMaxEventAge(everyMs: number): Duration {
  return Duration.millis(Math.min(Math.max(everyMs, MIN_EVENT_AGE_MS), MAX_EVENT_AGE_MS));
}

/**
 * One source's poller: a NodejsFunction (arm64, Node 24, minified ESM with source maps and the
 * rules file in the bundle), its log group, the EventBridge rule that runs it at `every`, and
 * with several samples a run the SQS delay queue that brings the later ones back.
 * A poller run is only useful now: no retries, stale events dropped after one period, one run
 * at a time, failed runs to the dead-letter queue. A source no rule reads has one too: it asks
 * the API nothing and ends the firing alerts of the rules removed from the file.
 */
export class SourcePoller extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly schedule: Rule;
  /** The delay queue that brings later samples back (only with `samples` above 1). */
  readonly sampleQueue?: Queue;

  constructor(scope: Construct, id: string, props: SourcePollerProps) {
    super(scope, id);
    const { source, everyMs } = props;
    if (everyMs < 60_000 || everyMs % 60_000 !== 0) {
      throw new InvalidPropError(
        `sources.${source}.every`,
        'must be a whole number of minutes, at least 1m (EventBridge rate schedules)',
      );
    }
    if (source !== 'live_calls' && (props.samples ?? 1) > 1) {
      // Only the live calls entry makes a sample queue (functions/live-calls.ts): another
      // function given one would refuse to start.
      throw new InvalidPropError(`sources.${source}.samples`, 'only live_calls takes samples');
    }
    const entry = join(props.functionsDir, FUNCTION_ENTRIES[source]);
    if (!existsSync(entry)) throw new MissingFileError(`handler entry of ${source}`, entry);

    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention });
    this.function = new NodejsFunction(this, 'Function', {
      ...handlerFunctionProps(props, entry, this.logGroup),
      timeout: pollerTimeout(everyMs),
      maxEventAge: pollerMaxEventAge(everyMs),
    });

    if ((props.samples ?? 1) > 1) {
      const timeout = pollerTimeout(everyMs);
      this.sampleQueue = new Queue(this, 'Samples', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // Lambda wants at least the function's timeout; a sample that comes back after it is
        // stale and dropped by the handler, so retries are few and never pile up.
        visibilityTimeout: timeout.plus(TIMEOUT_MARGIN),
        retentionPeriod: Duration.hours(1),
        // A sample is dropped as late once redelivered; only a handler that keeps failing on
        // it (a broken deployment) or keeps being throttled lands one here.
        deadLetterQueue: { queue: props.deadLetterQueue, maxReceiveCount: SAMPLE_MAX_RECEIVES },
      });
      this.sampleQueue.grantSendMessages(props.role);
      this.function.addEnvironment(SAMPLE_QUEUE_URL_ENV, this.sampleQueue.queueUrl);
      this.function.addEventSource(new SqsEventSource(this.sampleQueue, { batchSize: 1 }));
    }

    this.schedule = new Rule(this, 'Schedule', {
      description: readsSource(props.config, source)
        ? `telealert: poll ${source} every ${everyMs / 60_000} minute(s)`
        : `telealert: end the alerts of removed ${source} rules every ${everyMs / 60_000} minute(s) (no rule reads ${source}: no API call)`,
      schedule: Schedule.rate(Duration.minutes(everyMs / 60_000)),
      targets: [new LambdaFunction(this.function)],
    });
  }
}

/**
 * What every telealert function shares (pollers and the notifier): the handler and its
 * packaging, Node 24 on ARM, memory, role, log group, one instance at a time when reserved, no
 * retry of a failed invocation (the next scheduled one comes) and failures to the dead-letter
 * queue. The zone's offsets for the years around this synth ship with the config (no ICU at
 * cold start); synth is where the clock is read.
 */
export function handlerFunctionProps(
  props: HandlerFunctionProps,
  entry: string,
  logGroup: ILogGroup,
): NodejsFunctionProps {
  const embedded = embedConfig(props.config, new Date().getUTCFullYear());
  return {
    entry,
    handler: 'handler',
    projectRoot: props.projectRoot,
    depsLockFilePath: props.depsLockFilePath,
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize,
    role: props.role,
    logGroup,
    reservedConcurrentExecutions: props.reserveConcurrency ? 1 : undefined,
    retryAttempts: 0,
    onFailure: new SqsDestination(props.deadLetterQueue),
    ...handlerPackaging(props, props.configFile, embedded),
  };
}

/** What a telealert handler's packaging needs to know. */
export interface HandlerPackagingProps {
  readonly projectRoot: string;
  readonly functionsDir: string;
  readonly bundleAwsSdk?: boolean;
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * The environment and bundling every telealert handler shares (pollers and the notifier): ESM
 * for node24, the `node:http` and credential aliases, and the rules file and validated config
 * (with the digest that ties them to this bundle) copied beside the handler.
 */
function handlerPackaging(
  props: HandlerPackagingProps,
  configFile: string,
  embedded: EmbeddedConfig,
): Pick<NodejsFunctionProps, 'environment' | 'bundling'> {
  return {
    environment: {
      ...props.environment,
      ...POLLER_ENVIRONMENT,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
    },
    bundling: {
      format: OutputFormat.ESM,
      target: 'node24',
      mainFields: ['module', 'main'],
      minify: true,
      sourceMap: true,
      sourcesContent: false,
      banner: ESM_REQUIRE_BANNER,
      // Ties the bundle to the validated config shipped beside it (functions/runtime.ts).
      define: { [CONFIG_DIGEST_IDENTIFIER]: JSON.stringify(embedded.digest) },
      bundleAwsSDK: props.bundleAwsSdk,
      esbuildArgs: {
        '--alias': [
          `node:http=${functionsModulePath(props, NODE_HTTP_MODULE)}`,
          // Lambda gives the role's credentials in the environment: the SDK's default chain
          // is swapped for its environment link, dropping the SSO/STS clients it would carry.
          ...(props.bundleAwsSdk
            ? [
                `${CREDENTIAL_CHAIN_PACKAGE}=${functionsModulePath(props, LAMBDA_CREDENTIALS_MODULE)}`,
              ]
            : []),
        ],
      },
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => [
          `cp ${shellQuote(bundlingPath(configFile, props.projectRoot, inputDir))} ${shellQuote(join(outputDir, BUNDLED_CONFIG_NAME))}`,
          `printf '%s' ${shellQuote(embedded.text)} > ${shellQuote(join(outputDir, EMBEDDED_CONFIG_FILE))}`,
        ],
      },
    },
  };
}

/**
 * The rules file as the bundling step sees it: under the project root it is read through the
 * input directory (which is the project root locally and a mount inside Docker).
 */
export function bundlingPath(file: string, projectRoot: string, inputDir: string): string {
  const inside = relative(projectRoot, file);
  return inside.startsWith('..') || isAbsolute(inside) ? file : join(inputDir, inside);
}

/**
 * A module of the functions folder as esbuild's alias wants it: relative to the bundling's
 * working directory (the project root locally, its mount inside Docker), starting with `./`.
 */
export function functionsModulePath(
  props: Pick<SourcePollerProps, 'functionsDir' | 'projectRoot'>,
  module: string,
): string {
  const file = join(props.functionsDir, module);
  if (!existsSync(file)) throw new MissingFileError('bundling alias', file);
  const inside = relative(props.projectRoot, file);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new InvalidPropError(
      'functionsDir',
      'must be inside projectRoot (esbuild aliases are relative to it)',
    );
  }
  return `./${inside.split(sep).join('/')}`;
}

export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
