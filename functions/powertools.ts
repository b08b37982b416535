import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { METRIC_NAMESPACE, SERVICE_NAME } from '../shared/observability/metrics';

/** telealert's logger: every line names the service. */
export function serviceLogger(): Logger {
  return new Logger({ serviceName: SERVICE_NAME });
}

type MetricsLogger = NonNullable<NonNullable<ConstructorParameters<typeof Metrics>[0]>['logger']>;

/**
 * Powertools' warnings about metrics, without the one an invocation with nothing to count
 * gives: most invocations count nothing now (issue 29), and a line each would be billed too.
 */
export function quietWhenNothingToCount(logger: MetricsLogger = console): MetricsLogger {
  return {
    debug: (...content) => logger.debug(...content),
    info: (...content) => logger.info(...content),
    warn: (...content) => {
      if (String(content[0]).startsWith('No application metrics to publish')) return;
      logger.warn(...content);
    },
    error: (...content) => logger.error(...content),
  };
}

/** telealert's metrics (EMF), every one with the `source` dimension: a source, or `notifier`. */
export function sourceMetrics(source: string): Metrics {
  return new Metrics({
    namespace: METRIC_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { source },
    logger: quietWhenNothingToCount(),
  });
}

/**
 * `run` as a Lambda handler: middy with Powertools Logger (the invocation's context, keys reset
 * after each) and Metrics (flushed after each invocation, none written being no error).
 */
export function withPowertools<Event, Result>(
  run: (event: Event, context: Context) => Promise<Result>,
  logger: Logger,
  metrics: Metrics,
) {
  return middy(run)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { throwOnEmptyMetrics: false }));
}
