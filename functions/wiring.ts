import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { TelephonyClient } from '../shared/api/client';
import type { TokenSource } from '../shared/api/types';
import { smsPublishing } from '../shared/messages/sms-attributes';
import type { MessagePublisher, NotifierStore } from '../shared/ports/notifier';
import type { Publisher, SampleQueue, StateStore } from '../shared/ports/types';
import { NotifierHandoff } from '../shared/runner/notifier-handoff';
import type { PollClient } from '../shared/runner/types';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';
import { DynamoStateStore } from './adapters/dynamodb-state';
import { SnsMessagePublisher } from './adapters/sns-messages';
import { SnsPublisher } from './adapters/sns-publisher';
import { SsmTokenSource } from './adapters/ssm-token';
import { recordNotifierStep } from './notifier-metrics';
import { createRuntime, deliveryOf, type Runtime, type SampleQueueFactory } from './runtime';

/*
 * The deployed composition: which AWS adapter stands behind each port, built once per
 * container from its runtime (environment, rules file, SDK clients). The handlers only run it.
 */

/** A poller container's wiring: what a test may replace or wrap. */
export interface PollerWiring {
  readonly runtime: Runtime;
  readonly store: StateStore;
  readonly publisher: Publisher;
  readonly tokens: TokenSource;
  readonly client: PollClient;
  /** Where a scheduled run's later samples go (absent: the run takes them all itself). */
  readonly samples?: SampleQueue;
}

/** The notifier container's wiring: what a test may replace or wrap. */
export interface NotifierWiring {
  readonly runtime: Runtime;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
}

/** What the adapters take from the handler: its clock, its waits, where they report. */
export interface WiringContext {
  readonly env: NodeJS.ProcessEnv | undefined;
  readonly now: () => number;
  /** Absent: the adapters' own. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * A poller's ports: the state table, the token in SSM, the API client on that token, the sample
 * queue when the stack gave one, and delivery as `TELEALERT_DELIVERY` says (messages through a
 * notifier step, or each event published).
 */
export function wirePoller(
  context: WiringContext & { readonly sleep: (ms: number) => Promise<void> },
  sampleQueue?: SampleQueueFactory,
): PollerWiring {
  const { env, now, sleep, logger } = context;
  const runtime = createRuntime(env, sampleQueue);
  const { config } = runtime;
  const tokens = new SsmTokenSource({
    client: runtime.ssm,
    parameterName: config.api.tokenParameter,
    now,
  });
  return {
    runtime,
    tokens,
    ...(runtime.sampleQueue ? { samples: runtime.sampleQueue.queue } : {}),
    store: new DynamoStateStore({
      client: runtime.dynamodb,
      tableName: runtime.tableName,
      now,
      onOrphanLeft: orphanLeft(logger),
    }),
    publisher:
      deliveryOf(env ?? process.env) === 'messages'
        ? new NotifierHandoff({
            config,
            ...notifierPorts(runtime, context),
            now,
            onStep: (result) => recordNotifierStep(result, context.metrics, logger),
          })
        : new SnsPublisher({
            client: runtime.sns,
            topics: runtime.topics,
            sleep,
            onFailure: (failure) => logger.warn('SNS did not take a notification', { ...failure }),
            sms: smsPublishing(config),
          }),
    client: new TelephonyClient({
      baseUrl: config.api.baseUrl,
      timeoutMs: config.api.timeoutMs,
      timeZone: config.timezone,
      tokenSource: tokens,
      // The runner's deadline is on this clock: the client must measure what is left by it.
      now,
      sleep,
    }),
  };
}

/** The notifier's ports: its state in the table, messages published to the channels' topics. */
export function wireNotifier(context: WiringContext): NotifierWiring {
  const runtime = createRuntime(context.env);
  return { runtime, ...notifierPorts(runtime, context) };
}

/** The notifier step's store and publisher, alike for the notifier and a poller's handoff. */
function notifierPorts(
  runtime: Runtime,
  { now, sleep, logger }: WiringContext,
): { store: NotifierStore; publisher: MessagePublisher } {
  return {
    store: new DynamoNotifierStore({
      client: runtime.dynamodb,
      tableName: runtime.tableName,
      now,
      onOrphanLeft: orphanLeft(logger),
    }),
    publisher: new SnsMessagePublisher({
      client: runtime.sns,
      topics: runtime.topics,
      ...(sleep ? { sleep } : {}),
      onFailure: (failure) => logger.warn('SNS did not take a message', { ...failure }),
      sms: smsPublishing(runtime.config),
    }),
  };
}

/**
 * A crashed commit's leftover item a load could not delete: harmless (never delivered, gone
 * with its TTL), but a role without DeleteItem would otherwise leave them unseen.
 */
function orphanLeft(logger: Logger): (sortKey: string, error: unknown) => void {
  return (sortKey, error) =>
    logger.warn('cannot delete a leftover item of a crashed commit; its TTL will', {
      sortKey,
      error: error instanceof Error ? error.message : String(error),
    });
}
