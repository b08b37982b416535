import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  CALL_STATES,
  type CallState,
  METRIC_NAMES,
  METRIC_NAMESPACE,
  type MetricName,
  SERVICE_NAME,
} from '../shared/observability/metrics';
import type { SourceName } from '../shared/types/config';

export { CALL_STATES, METRIC_NAMES, METRIC_NAMESPACE, type MetricName, SERVICE_NAME };

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

/** A metric of the notifier function (dimensions `service` and `source: notifier`). */
export function notifierMetric(
  name: MetricName,
  options: { statistic: string; period: Duration; label?: string },
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, source: 'notifier' },
    statistic: options.statistic,
    period: options.period,
    label: options.label,
  });
}

/** Live calls in one state (`CALL_STATES`, the API's other states folded into `other`). */
export function callsMetric(
  state: CallState,
  options: { statistic: string; period: Duration; label?: string },
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName: METRIC_NAMES.callsByState,
    dimensionsMap: { service: SERVICE_NAME, source: 'live_calls', state },
    statistic: options.statistic,
    period: options.period,
    label: options.label,
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
