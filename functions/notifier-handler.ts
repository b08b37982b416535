import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { type NotifierStepResult, notifierStep } from '../shared/runner/notifier-step';
import type { ScheduledEvent } from './events';
import { recordNotifierStep } from './notifier-metrics';
import { serviceLogger, sourceMetrics, withPowertools } from './powertools';
import { type NotifierWiring, wireNotifier } from './wiring';

export interface NotifierHandlerOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
  readonly env?: NodeJS.ProcessEnv;
  /** Wraps the container's wiring once it is built (tests: crash injection, fakes). */
  readonly wire?: (wiring: NotifierWiring) => NotifierWiring;
}

/**
 * The notifier's own clock (scheduled every minute): one notifier step with no events, so what
 * is due with no poller running goes out (a held group's next message, a digest at the start of
 * active hours, the SMS the cap held), and what a crashed step left owed is published.
 */
export function createNotifierHandler(options: NotifierHandlerOptions = {}) {
  const logger = options.logger ?? serviceLogger();
  const metrics = options.metrics ?? sourceMetrics('notifier');
  const now = options.now ?? (() => Date.now());
  let wiring: NotifierWiring | undefined;

  const run = async (event: ScheduledEvent, context: Context): Promise<NotifierStepResult> => {
    logger.setCorrelationId(event?.id ?? context.awsRequestId);
    if (wiring === undefined) {
      const built = wireNotifier({ env: options.env, now, logger, metrics });
      wiring = options.wire ? options.wire(built) : built;
    }
    const { runtime, store, publisher } = wiring;
    const result = await notifierStep({ config: runtime.config, store, publisher, now });
    recordNotifierStep(result, metrics, logger);
    return result;
  };

  return withPowertools(run, logger, metrics);
}
