import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  METRIC_NAMES,
  METRIC_NAMESPACE,
  type MetricName,
  SERVICE_NAME,
} from '../shared/observability/metrics';
import type { SourceName } from '../shared/types/config';

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

/** SNS's own metrics. */
export const SNS_NAMESPACE = 'AWS/SNS';

/** The share of `sms.monthlyBudgetUsd` at which the SMS spend alarm fires. */
export const SMS_SPEND_ALARM_SHARE = 0.8;

/** 80% of the budget in whole cents (0.8 * 3 is 2.4000000000000004 in floating point). */
export function smsSpendThreshold(monthlyBudgetUsd: number): number {
  return Math.round(monthlyBudgetUsd * SMS_SPEND_ALARM_SHARE * 100) / 100;
}

/**
 * The account's SMS spend this month, in USD: `SMSMonthToDateSpentUSD`, which SNS reports for
 * the account and region, without dimensions.
 */
export function smsSpendMetric(period: Duration, label?: string): Metric {
  return new Metric({
    namespace: SNS_NAMESPACE,
    metricName: 'SMSMonthToDateSpentUSD',
    statistic: 'Maximum',
    period,
    label,
  });
}

/** `SMSSuccessRate` in every series SNS reports it (per country and SMS type, or none). */
export function smsSuccessRateMetric(period: Duration): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${SNS_NAMESPACE}} MetricName="SMSSuccessRate"', 'Average', ${period.toSeconds()})`,
    usingMetrics: {},
    label: 'SMS success rate',
    period,
  });
}

/** Period of dashboard graphs. */
export const DASHBOARD_PERIOD = Duration.minutes(1);
