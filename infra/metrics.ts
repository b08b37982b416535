import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { SourceName } from '../shared/config/types';

import {
  METRIC_NAMES,
  METRIC_NAMESPACE,
  type MetricName,
  SERVICE_NAME,
} from '../shared/observability/metrics';

export { METRIC_NAMES, METRIC_NAMESPACE, type MetricName, SERVICE_NAME };

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
