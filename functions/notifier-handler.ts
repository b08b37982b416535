import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { smsPublishing } from '../shared/messages/sms-attributes';
import { METRIC_NAMESPACE, SERVICE_NAME } from '../shared/observability/metrics';
import type { MessagePublisher, NotifierStore } from '../shared/ports/notifier';
import { type NotifierStepResult, notifierStep } from '../shared/runner/notifier-step';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';
import { SnsMessagePublisher } from './adapters/sns-messages';
import type { ScheduledEvent } from './handler';
import { recordNotifierStep } from './notifier-metrics';
import { createRuntime, type Runtime } from './runtime';

/** The container's wiring: what a test may replace or wrap. */
export interface NotifierWiring {
  readonly runtime: Runtime;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
}

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
  const logger = options.logger ?? new Logger({ serviceName: SERVICE_NAME });
  const metrics =
    options.metrics ??
    new Metrics({
      namespace: METRIC_NAMESPACE,
      serviceName: SERVICE_NAME,
      defaultDimensions: { source: 'notifier' },
    });
  const now = options.now ?? (() => Date.now());
  let wiring: NotifierWiring | undefined;

  const wire = (): NotifierWiring => {
    const runtime = createRuntime(options.env);
    const built: NotifierWiring = {
      runtime,
      store: new DynamoNotifierStore({
        client: runtime.dynamodb,
        tableName: runtime.tableName,
        now,
      }),
      publisher: new SnsMessagePublisher({
        client: runtime.sns,
        topics: runtime.topics,
        onFailure: (failure) => logger.warn('SNS did not take a message', { ...failure }),
        sms: smsPublishing(runtime.config),
      }),
    };
    return options.wire ? options.wire(built) : built;
  };

  const run = async (event: ScheduledEvent, context: Context): Promise<NotifierStepResult> => {
    logger.setCorrelationId(event?.id ?? context.awsRequestId);
    wiring ??= wire();
    const result = await notifierStep({
      config: wiring.runtime.config,
      store: wiring.store,
      publisher: wiring.publisher,
      now,
    });
    recordNotifierStep(result, metrics, logger);
    return result;
  };

  return middy(run)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { throwOnEmptyMetrics: false }));
}
