import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { SourceName } from '../shared/config/types';

/** CloudWatch namespace of the runtime's EMF metrics (ARCHITECTURE.md, last table). */
export const METRIC_NAMESPACE = 'Telealert';
/** Powertools adds `service` to every metric's dimensions; a metric's identity includes it. */
export const SERVICE_NAME = 'telealert';

export const METRIC_NAMES = {
  pollSucceeded: 'PollSucceeded',
  pollFailed: 'PollFailed',
  callsByState: 'CallsByState',
  ringingCalls: 'RingingCalls',
  pendingPayments: 'PendingPayments',
  notificationsSent: 'NotificationsSent',
  apiLatency: 'ApiLatency',
  apiErrors: 'ApiErrors',
  recordsSkipped: 'RecordsSkipped',
} as const;

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];

/** A per-source metric with exactly the dimensions the runtime emits: `service` and `source`. */
export function sourceMetric(
  name: MetricName,
  source: SourceName,
  options: { statistic: string; period: Duration; label?: string },
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, source },
    statistic: options.statistic,
    period: options.period,
    // No default label: an alarm on a labelled metric renders as a metric query, not a metric.
    label: options.label,
  });
}

/**
 * Every time series of a metric whatever its extra dimensions (`state`, `rule`/`status`,
 * `endpoint`), whose values are only known at run time: a CloudWatch SEARCH expression.
 */
export function searchMetric(
  name: MetricName,
  statistic: string,
  period: Duration,
  label: string,
): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRIC_NAMESPACE}} MetricName="${name}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label,
    period,
  });
}

/** Period of dashboard graphs. */
export const DASHBOARD_PERIOD = Duration.minutes(1);
