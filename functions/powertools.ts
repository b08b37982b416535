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

/** telealert's metrics (EMF), every one with the `source` dimension: a source, or `notifier`. */
export function sourceMetrics(source: string): Metrics {
  return new Metrics({
    namespace: METRIC_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { source },
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
