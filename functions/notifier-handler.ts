import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { notifierRound } from '../shared/runner/notifier-round';
import type { NotifierEvent } from './events';
import { type NotifierSummary, recordNotifierRound } from './notifier-metrics';
import { type NotifierWiring, wireNotifier } from './notifier-wiring';
import { serviceLogger, sourceMetrics, withPowertools } from './powertools';

export interface NotifierHandlerOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits between a refused publish and its retry. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly env?: NodeJS.ProcessEnv;
  /** Wraps the container's wiring once it is built (tests: crash injection, fakes). */
  readonly wire?: (wiring: NotifierWiring) => NotifierWiring;
}

/** The id a notifier's log lines are correlated by: the schedule's, the stream record's, or the request's. */
function correlationId(event: NotifierEvent, context: Context): string {
  const id = event && 'Records' in event ? event.Records[0]?.eventID : event?.id;
  return id ?? context.awsRequestId;
}

/**
 * The notifier function: alone, it turns the pollers' alert events into messages. Each
 * invocation is one round (`notifierRound`): the events the pollers committed, one notifier
 * step, the events marked sent. The state table's stream invokes it when a poller commits (so
 * a new group's first message goes at once), its schedule every minute (what is due with no
 * poller running: a held group's next message, a digest at the start of active hours, the SMS
 * the cap held; and what a crashed round left). Every invocation does the same, whatever woke
 * it, and returns a summary small enough for any invoker.
 */
export function createNotifierHandler(options: NotifierHandlerOptions = {}) {
  const logger = options.logger ?? serviceLogger();
  const metrics = options.metrics ?? sourceMetrics('notifier');
  const now = options.now ?? (() => Date.now());
  let wiring: NotifierWiring | undefined;

  const run = async (event: NotifierEvent, context: Context): Promise<NotifierSummary> => {
    logger.setCorrelationId(correlationId(event, context));
    if (wiring === undefined) {
      const { sleep } = options;
      const built = wireNotifier({
        env: options.env,
        now,
        logger,
        metrics,
        ...(sleep ? { sleep } : {}),
      });
      wiring = options.wire ? options.wire(built) : built;
    }
    const { runtime, events, store, publisher } = wiring;
    const result = await notifierRound({
      config: runtime.config,
      events,
      store,
      publisher,
      now,
      deadlineMs: now() + context.getRemainingTimeInMillis(),
    });
    return recordNotifierRound(result, logger, metrics);
  };

  return withPowertools(run, logger, metrics);
}
