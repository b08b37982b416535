import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { RunSummary } from '../shared/runner/types';
import type { SourceName } from '../shared/types/config';
import type { PollerEvent } from './events';
import { pollCorrelationId, pollInvocation } from './poll';
import { serviceLogger, sourceMetrics, withPowertools } from './powertools';
import type { SampleQueueFactory } from './runtime';
import { type PollerWiring, wirePoller } from './wiring';

export interface PollerOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Wraps the container's wiring once it is built (tests: crash injection, fakes). */
  readonly wire?: (wiring: PollerWiring) => PollerWiring;
  readonly env?: NodeJS.ProcessEnv;
  /** A full garbage collection (`collectAfterLargeRun`). @default globalThis.gc */
  readonly collect?: () => void;
  /**
   * The sample queue, made from `TELEALERT_SAMPLE_QUEUE_URL` (`sqsSampleQueue`); only the live
   * calls entry gives it, so the payments bundle carries no SQS client.
   */
  readonly sampleQueue?: SampleQueueFactory;
}

/**
 * A poller Lambda handler for one source: Powertools' logger and metrics around one poll
 * invocation (`poll.ts`). The ports (`wiring.ts`: rules file, environment, SDK clients, token
 * cache) are built once per container, at the first invocation; a broken deployment fails
 * there with what to fix.
 */
export function createPollerHandler(source: SourceName, options: PollerOptions = {}) {
  const logger = options.logger ?? serviceLogger();
  const metrics = options.metrics ?? sourceMetrics(source);
  // Read through `Date` at each call (not captured), so a test clock set later applies.
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let wiring: PollerWiring | undefined;

  const run = async (event: PollerEvent, context: Context): Promise<RunSummary> => {
    logger.appendKeys({ source });
    logger.setCorrelationId(pollCorrelationId(event, context));
    if (wiring === undefined) {
      const built = wirePoller(
        { env: options.env, now, sleep, logger, metrics },
        options.sampleQueue,
      );
      wiring = options.wire ? options.wire(built) : built;
    }
    const { collect } = options;
    return pollInvocation({ source, wiring, now, sleep, logger, metrics, collect }, event, context);
  };

  return withPowertools(run, logger, metrics);
}
