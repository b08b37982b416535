import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { type MotoServer as Moto, startMoto } from '../cli/deploy-local/moto';
import { sqsSampleQueue } from '../functions/adapters/sqs-samples';
import { createPollerHandler } from '../functions/handler';
import { createNotifierHandler } from '../functions/notifier-handler';
import type { NotifierSummary } from '../functions/notifier-metrics';
import type { PollerWiring } from '../functions/wiring';
import { writeEmbeddedConfig } from '../shared/config/embedded';
import { readConfigData } from '../shared/config/load';
import { validateConfig } from '../shared/config/validate';
import { planRequests } from '../shared/engine/plan';
import { laterSamples } from '../shared/runner/samples';
import type { RunSummary } from '../shared/runner/types';
import type { Config, SourceName } from '../shared/types/config';
import { startSimulator } from '../simulator/server';
import { createFakeStack, createStateTable, type FakeStack } from '../test/support/aws';
import type { DeployedMemorySetup } from './memory';
import { benchConfigData } from './rules';
import { median, round } from './stats';

const TOKEN = 'bench-token';
const TOKEN_PARAMETER = '/bench/api-token';

/** The AWS side on loopback: moto with the stack's table, topics and token, and the simulator. */
export interface Loopback {
  readonly moto: Moto;
  readonly stack: FakeStack;
  readonly simulatorUrl: string;
  requests(): number;
  /** The shipped rules, pointed at the simulator and the bench's token parameter. */
  rules(samples?: number): Record<string, unknown>;
  /**
   * What the deployed payments function needs to handle the 100k body alone: a state table of
   * its own (the other measurements keep theirs), the topics, the bench's rules (shipped plus
   * twenty, or `options.rules`) and the token. `options.table` names another table.
   */
  deployedSetup(
    bundle: string,
    options?: { table?: string; rules?: Record<string, unknown> },
  ): Promise<DeployedMemorySetup>;
  stop(): Promise<void>;
}

export async function startLoopback(rulesText: string): Promise<Loopback> {
  const moto = await startMoto();
  moto.applyEnv();
  const data = readConfigData(rulesText, 'telealert.yaml') as Record<string, unknown>;
  const channels = Object.fromEntries(
    Object.keys(data.channels as object).map((name) => [name, {}]),
  );
  const stack = await createFakeStack({
    prefix: 'bench',
    channels,
    tokenParameter: TOKEN_PARAMETER,
    token: TOKEN,
  });
  const simulator = await startSimulator({ port: 0, token: TOKEN, scenario: 'busy-evening' });
  return {
    moto,
    stack,
    simulatorUrl: simulator.url,
    requests: () => simulator.requests.length,
    rules(samples) {
      const sources = structuredClone(data.sources) as Record<string, Record<string, unknown>>;
      if (samples !== undefined && sources.live_calls) sources.live_calls.samples = samples;
      return {
        ...data,
        api: { ...(data.api as object), baseUrl: simulator.url, tokenParameter: TOKEN_PARAMETER },
        sources,
      };
    },
    async deployedSetup(bundle, options = {}) {
      const tableName = options.table ?? 'bench-memory-state';
      await createStateTable(new DynamoDBClient({}), tableName);
      const rules = options.rules ?? (benchConfigData() as Record<string, unknown>);
      return {
        bundle,
        // The table; the topics are the notifier's (the volume figure runs one round after
        // the pollers, which read none: they commit their events, the notifier sends).
        environment: { TELEALERT_TABLE: tableName, TELEALERT_TOPICS: JSON.stringify(stack.topics) },
        rules: { ...rules, api: { ...(rules.api as object), tokenParameter: TOKEN_PARAMETER } },
        token: TOKEN,
        table: tableName,
      };
    },
    async stop() {
      await simulator.close();
      stack.destroy();
      await moto.stop();
    },
  };
}

function lambdaContext(): Context {
  return {
    awsRequestId: 'bench',
    functionName: 'bench',
    getRemainingTimeInMillis: () => 55_000,
  } as unknown as Context;
}

export interface WarmFigure {
  readonly source: SourceName;
  readonly runs: number;
  /** Median wall time of a whole run: every invocation it takes, back to back. */
  readonly wallMs: number;
  /** Lambda invocations in a run: the scheduled one and one per queued sample. */
  readonly invocations: number;
  /** Median billed time of one run, summed over its invocations (each rounded up to 1 ms). */
  readonly billedMs: number;
  readonly samples: number;
  readonly apiRequests: number;
  readonly expectedApiRequests: number;
  readonly dynamodbReads: number;
  readonly dynamodbWrites: number;
  readonly ssmCalls: number;
  readonly sqsSends: number;
  /** Alert events the run committed, owed to the notifier (a poller publishes nothing). */
  readonly events: number;
}

type Counted = {
  dynamodbReads: number;
  dynamodbWrites: number;
  ssm: number;
  sqs: number;
};

/** DynamoDB commands that read (priced in read units); every other one writes. */
const DYNAMODB_READS = new Set(['QueryCommand', 'GetItemCommand']);

/** A queue on moto for the live calls poller's later samples, as the stack gives it one. */
export async function createSampleQueue(): Promise<string> {
  const sqs = new SQSClient({});
  try {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'bench-samples' }));
    if (!QueueUrl) throw new Error('moto created no sample queue');
    return QueueUrl;
  } finally {
    sqs.destroy();
  }
}

/** What the sample queue hands the function for one queued sample at its slot. */
export function sampleEvent(sample: number, dueAtMs: number, run = 'bench'): SQSEvent {
  const body = JSON.stringify({
    source: 'live_calls',
    sample,
    dueAt: new Date(dueAtMs).toISOString(),
  });
  return {
    Records: [
      {
        messageId: `${run}-${sample}`,
        receiptHandle: run,
        body,
        attributes: {} as SQSEvent['Records'][number]['attributes'],
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:bench-samples',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

/**
 * Warm runs of the real handler (middy, Powertools, the AWS adapters) in this process against
 * the simulator and moto: the first invocation sets the container up, the next `runs` are
 * timed. A live calls run is what the stack does each minute: the scheduled invocation (first
 * sample, later ones sent to the sample queue on moto) and one invocation per queued sample,
 * handed the message the queue would deliver at its slot. The SDK clients count their calls
 * with a middleware.
 */
export async function measureWarm(
  loopback: Loopback,
  directory: string,
  source: SourceName,
  runs: number,
  sampleQueueUrl?: string,
): Promise<WarmFigure> {
  const file = join(directory, `warm-${source}.json`);
  const config: Config = validateConfig(loopback.rules(), 'warm.json');
  writeEmbeddedConfig(file, config);
  const counts: Counted = { dynamodbReads: 0, dynamodbWrites: 0, ssm: 0, sqs: 0 };
  let committed = 0;
  const count = (wiring: PollerWiring): PollerWiring => {
    const { runtime } = wiring;
    runtime.dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        if (DYNAMODB_READS.has(String(context.commandName))) counts.dynamodbReads += 1;
        else counts.dynamodbWrites += 1;
        return next(args);
      },
      { step: 'initialize', name: 'benchCount-dynamodb' },
    );
    const counting =
      (name: 'ssm' | 'sqs') =>
      <I, O>(next: (args: I) => Promise<O>) =>
      async (args: I) => {
        counts[name] += 1;
        return next(args);
      };
    const step = (name: string) => ({ step: 'initialize' as const, name: `benchCount-${name}` });
    runtime.ssm.middlewareStack.add(counting('ssm'), step('ssm'));
    runtime.sampleQueue?.sqs.middlewareStack.add(counting('sqs'), step('sqs'));
    // As deployed, the pollers commit their events for the notifier: counted as committed.
    const { store } = wiring;
    return {
      ...wiring,
      store: {
        load: (s) => store.load(s),
        markSent: (s, ids) => store.markSent(s, ids),
        narrowOwed: (s, id, channels) => store.narrowOwed(s, id, channels),
        commit: async (s, revision, next, owed) => {
          const written = await store.commit(s, revision, next, owed);
          committed += owed.length;
          return written;
        },
      },
    };
  };
  const handler = createPollerHandler(source, {
    logger: new Logger({ logLevel: 'SILENT' }),
    sleep: async () => {},
    wire: count,
    ...(sampleQueueUrl ? { sampleQueue: sqsSampleQueue } : {}),
    env: {
      ...process.env,
      TELEALERT_CONFIG_FILE: file,
      TELEALERT_TABLE: loopback.stack.tableName,
      ...(sampleQueueUrl ? { TELEALERT_SAMPLE_QUEUE_URL: sampleQueueUrl } : {}),
    },
  }) as unknown as (event: object, context: Context) => Promise<RunSummary>;

  /** One run: its invocations back to back, each timed. */
  const run = async (id: string) => {
    const billed: number[] = [];
    const timed = async (event: object) => {
      const start = performance.now();
      const summary = await handler(event, lambdaContext());
      billed.push(Math.ceil(performance.now() - start));
      return summary;
    };
    const startMs = Date.now();
    let samples = (await timed({ id })).samples;
    if (sampleQueueUrl) {
      for (const later of laterSamples(config, source, startMs)) {
        samples += (await timed(sampleEvent(later.sample, Date.now()))).samples;
      }
    }
    return { samples, billed };
  };

  await run('cold');
  const times: number[] = [];
  const billedTimes: number[] = [];
  let last = {
    ...counts,
    requests: 0,
    samples: 0,
    invocations: 0,
    events: 0,
  };
  for (let index = 0; index < runs; index += 1) {
    const before = { ...counts, requests: loopback.requests(), committed };
    const start = performance.now();
    const { samples, billed } = await run(`warm-${index}`);
    times.push(performance.now() - start);
    billedTimes.push(billed.reduce((sum, ms) => sum + ms, 0));
    last = {
      dynamodbReads: counts.dynamodbReads - before.dynamodbReads,
      dynamodbWrites: counts.dynamodbWrites - before.dynamodbWrites,
      ssm: counts.ssm - before.ssm,
      sqs: counts.sqs - before.sqs,
      requests: loopback.requests() - before.requests,
      samples,
      invocations: billed.length,
      events: committed - before.committed,
    };
  }
  if (sampleQueueUrl) {
    // The delayed messages the scheduled invocations sent: the bench delivered them itself.
    const sqs = new SQSClient({});
    await sqs.send(new PurgeQueueCommand({ QueueUrl: sampleQueueUrl }));
    sqs.destroy();
  }
  const perSample = planRequests(config, source, Date.now()).length;
  return {
    source,
    runs,
    wallMs: round(median(times), 1),
    invocations: last.invocations,
    billedMs: median(billedTimes),
    samples: last.samples,
    apiRequests: last.requests,
    expectedApiRequests: perSample * last.samples,
    dynamodbReads: last.dynamodbReads,
    dynamodbWrites: last.dynamodbWrites,
    ssmCalls: last.ssm,
    sqsSends: last.sqs,
    events: last.events,
  };
}

/** Warm invocations of the notifier function, as its minute (or a poller's commit) runs it. */
export interface NotifierWarmFigure {
  readonly runs: number;
  /** Median billed time of one invocation (rounded up to 1 ms). */
  readonly billedMs: number;
  /** Calls of one invocation: its reads (its own partition and each source's owed events), writes, publishes. */
  readonly dynamodbReads: number;
  readonly dynamodbWrites: number;
  readonly snsCalls: number;
  /**
   * Over every invocation, the first included (it takes what the pollers' runs committed):
   * the events taken in, the messages published, and the SNS calls made.
   */
  readonly events: number;
  readonly messages: number;
  readonly snsCallsAll: number;
}

/**
 * Warm invocations of the real notifier handler (middy, Powertools, the AWS adapters) in this
 * process against moto, after the pollers' warm runs: the first sets the container up, the
 * next `runs` are timed. What each one costs is what every minute's and every commit's
 * invocation costs while nothing is due (the pollers' quiet state): the notifier's cost row.
 */
export async function measureNotifierWarm(
  loopback: Loopback,
  directory: string,
  runs: number,
): Promise<NotifierWarmFigure> {
  const file = join(directory, 'warm-notifier.json');
  writeEmbeddedConfig(file, validateConfig(loopback.rules(), 'warm.json'));
  const counts = { dynamodbReads: 0, dynamodbWrites: 0, sns: 0 };
  const handler = createNotifierHandler({
    logger: new Logger({ logLevel: 'SILENT' }),
    wire: (wiring) => {
      wiring.runtime.dynamodb.middlewareStack.add(
        (next, context) => async (args) => {
          if (DYNAMODB_READS.has(String(context.commandName))) counts.dynamodbReads += 1;
          else counts.dynamodbWrites += 1;
          return next(args);
        },
        { step: 'initialize', name: 'benchCount-dynamodb' },
      );
      wiring.runtime.sns.middlewareStack.add(
        (next) => async (args) => {
          counts.sns += 1;
          return next(args);
        },
        { step: 'initialize', name: 'benchCount-sns' },
      );
      return wiring;
    },
    env: {
      ...process.env,
      TELEALERT_CONFIG_FILE: file,
      TELEALERT_TABLE: loopback.stack.tableName,
      TELEALERT_TOPICS: JSON.stringify(loopback.stack.topics),
    },
  }) as unknown as (event: object, context: Context) => Promise<unknown>;
  let events = 0;
  let messages = 0;
  const round = async (id: string) => {
    const summary = (await handler({ id }, lambdaContext())) as NotifierSummary;
    events += summary.taken;
    messages += summary.published.length;
  };
  await round('notifier-cold');
  const billed: number[] = [];
  let last = { ...counts };
  for (let index = 0; index < runs; index += 1) {
    const before = { ...counts };
    const start = performance.now();
    await round(`notifier-warm-${index}`);
    billed.push(Math.ceil(performance.now() - start));
    last = {
      dynamodbReads: counts.dynamodbReads - before.dynamodbReads,
      dynamodbWrites: counts.dynamodbWrites - before.dynamodbWrites,
      sns: counts.sns - before.sns,
    };
  }
  return {
    runs,
    billedMs: median(billed),
    dynamodbReads: last.dynamodbReads,
    dynamodbWrites: last.dynamodbWrites,
    snsCalls: last.sns,
    events,
    messages,
    snsCallsAll: counts.sns,
  };
}
