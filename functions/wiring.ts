import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { TelephonyClient } from '../shared/api/client';
import type { TokenSource } from '../shared/api/types';
import type { SampleQueue, StateStore } from '../shared/ports/types';
import type { PollClient } from '../shared/runner/types';
import { DynamoStateStore } from './adapters/dynamodb-state';
import { SsmTokenSource } from './adapters/ssm-token';
import { createRuntime, type Runtime, type SampleQueueFactory } from './runtime';

/*
 * The deployed composition: which AWS adapter stands behind each port, built once per
 * container from its runtime (environment, rules file, SDK clients). The handlers only run it.
 */

/** A poller container's wiring: what a test may replace or wrap. */
export interface PollerWiring {
  readonly runtime: Runtime;
  /** Where a run commits its state and its events, owed to the notifier. */
  readonly store: StateStore;
  readonly tokens: TokenSource;
  readonly client: PollClient;
  /** Where a scheduled run's later samples go (absent: the run takes them all itself). */
  readonly samples?: SampleQueue;
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
 * A poller's ports: the state table, the token in SSM, the API client on that token, and the
 * sample queue when the stack gave one. No publisher: a run commits its events, and the notifier
 * function takes them from the table (its stream, its minute).
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

/**
 * A crashed commit's leftover item a load could not delete: harmless (never delivered, gone
 * with its TTL), but a role without DeleteItem would otherwise leave them unseen.
 */
export function orphanLeft(logger: Logger): (sortKey: string, error: unknown) => void {
  return (sortKey, error) =>
    logger.warn('cannot delete a leftover item of a crashed commit; its TTL will', {
      sortKey,
      error: error instanceof Error ? error.message : String(error),
    });
}
