import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import {
  EMBEDDED_CONFIG_FILE,
  readConfigOverride,
  readEmbeddedConfig,
} from '../shared/config/embedded';
import type { Config } from '../shared/types/config';
import { clientOptions } from './adapters/clients';
import { RuntimeConfigError } from './adapters/errors';
import type { SampleQueueWiring } from './adapters/sqs-samples';

/** The environment the stack gives each function (docs/architecture.md, last table). */
export const ENV = {
  table: 'TELEALERT_TABLE',
  /** The notifier's only: channel name -> topic ARN. */
  topics: 'TELEALERT_TOPICS',
  configFile: 'TELEALERT_CONFIG_FILE',
  /** The live calls poller's sample queue (set when the rules take several samples a run). */
  sampleQueueUrl: 'TELEALERT_SAMPLE_QUEUE_URL',
} as const;

/**
 * What a poller's container sets up once and reuses across invocations: a poller commits its
 * events to the table, so it has no topics and no SNS client.
 */
export interface Runtime {
  readonly config: Config;
  readonly tableName: string;
  readonly dynamodb: DynamoDBClient;
  readonly ssm: SSMClient;
  /** The sample queue and its client, when the stack gave this function one. */
  readonly sampleQueue?: SampleQueueWiring;
}

/**
 * Makes a function's sample queue from its URL (`sqs-samples.ts` `sqsSampleQueue`): given by
 * the live calls entry only, so the payments bundle carries no SQS client.
 */
export type SampleQueueFactory = (queueUrl: string) => SampleQueueWiring;

/**
 * `TELEALERT_TOPICS` read: a JSON object of channel name to topic ARN, with a topic for every
 * channel of `config`.
 *
 * @throws RuntimeConfigError saying what is wrong with it.
 */
export function readTopics(text: string | undefined, config: Config): Record<string, string> {
  const wrong = (reason: string, cause?: unknown) =>
    new RuntimeConfigError(
      `${ENV.topics} must be a JSON object of channel name to SNS topic ARN: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
  let data: unknown;
  try {
    data = JSON.parse(text ?? '');
  } catch (error) {
    throw wrong(text === undefined ? 'it is not set' : 'it is not JSON', error);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw wrong(`it is ${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data}`);
  }
  const topics: Record<string, string> = {};
  for (const [channel, arn] of Object.entries(data)) {
    if (channel === '') throw wrong('a channel name is empty');
    if (typeof arn !== 'string' || !arn.startsWith('arn:')) {
      throw wrong(`${channel}: ${JSON.stringify(arn)} is not an ARN`);
    }
    topics[channel] = arn;
  }
  // Own keys only: `in` would find a channel named `constructor` on Object's prototype.
  const missing = Object.keys(config.channels).filter((channel) => !Object.hasOwn(topics, channel));
  if (missing.length > 0) {
    throw new RuntimeConfigError(
      `${ENV.topics} has no topic for channel(s) ${missing.join(', ')}: redeploy the stack with this rules file`,
    );
  }
  return topics;
}

/**
 * The digest of the validated config `cdk synth` wrote beside this handler, which the bundler
 * puts in (`infra/poller.ts`, `CONFIG_DIGEST_IDENTIFIER`); absent when the handler runs from
 * source.
 */
declare const __TELEALERT_CONFIG_DIGEST__: string | undefined;
const BUNDLED_CONFIG_DIGEST =
  typeof __TELEALERT_CONFIG_DIGEST__ === 'string' ? __TELEALERT_CONFIG_DIGEST__ : undefined;

/**
 * The rules: the config synth validated and wrote beside the handler (`telealert.config.json`),
 * read without validating it again (about 13 ms of a cold start), provided it is the one this
 * bundle was built with (`digest`). `TELEALERT_CONFIG_FILE` names another validated config in
 * the same format instead (`writeEmbeddedConfig`: tests, the bench, a handler run from source),
 * so no function carries the rules' validator.
 *
 * @throws RuntimeConfigError when neither is there; ConfigError (shared/config) for another
 *   build's config, or a file that is not a validated config.
 */
export function loadRuntimeConfig(
  env: NodeJS.ProcessEnv,
  digest: string | undefined = BUNDLED_CONFIG_DIGEST,
): Config {
  const override = env[ENV.configFile];
  if (override !== undefined) return readConfigOverride(override);
  if (digest === undefined) {
    throw new RuntimeConfigError(
      `${ENV.configFile} is not set, and this handler was not bundled by the stack (which ships the validated rules beside it): set ${ENV.configFile} to a validated config (shared/config/embedded.ts writeEmbeddedConfig)`,
    );
  }
  return readEmbeddedConfig(
    join(env.LAMBDA_TASK_ROOT ?? process.cwd(), EMBEDDED_CONFIG_FILE),
    digest,
  );
}

/**
 * A poller's runtime: reads and checks the environment and the rules file, and creates the SDK
 * clients (explicit timeouts, bounded attempts). Synchronous and throwing: a broken deployment
 * fails at cold start with a message that says what to fix, before any poll. `configDigest` is
 * the bundled config's (`loadRuntimeConfig`); a test reading a config of its own gives that
 * one's.
 *
 * @throws RuntimeConfigError for a missing or malformed variable; ConfigError (shared/config)
 *   for a config that is not the validated one.
 */
export function createRuntime(
  env: NodeJS.ProcessEnv = process.env,
  sampleQueue?: SampleQueueFactory,
  configDigest: string | undefined = BUNDLED_CONFIG_DIGEST,
): Runtime {
  const config = loadRuntimeConfig(env, configDigest);
  const tableName = tableNameOf(env);
  const sampleQueueUrl = env[ENV.sampleQueueUrl];
  if (sampleQueueUrl && sampleQueue === undefined) {
    throw new RuntimeConfigError(
      `${ENV.sampleQueueUrl} is set, but this function queues no samples (only the live calls poller does): remove it`,
    );
  }
  const options = clientOptions();
  return {
    config,
    tableName,
    dynamodb: new DynamoDBClient(options),
    ssm: new SSMClient(options),
    ...(sampleQueueUrl && sampleQueue ? { sampleQueue: sampleQueue(sampleQueueUrl) } : {}),
  };
}

/**
 * `TELEALERT_TABLE`.
 *
 * @throws RuntimeConfigError when it is not set.
 */
export function tableNameOf(env: NodeJS.ProcessEnv): string {
  const tableName = env[ENV.table];
  if (!tableName) throw new RuntimeConfigError(`${ENV.table} is not set: the state table's name`);
  return tableName;
}
