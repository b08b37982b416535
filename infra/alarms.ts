import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SourceName } from '../shared/types/config';
import {
  METRIC_NAMES,
  notifierMetric,
  smsSpendMetric,
  smsSpendThreshold,
  sourceMetric,
} from './metrics';

/** What SMS alarms watch: the account's spend and the channels that send SMS. */
export interface SmsMonitoringProps {
  /** `sms.monthlyBudgetUsd`: the spend alarm fires at 80% of it. */
  readonly monthlyBudgetUsd: number;
  /** The topics of the channels with SMS subscribers, by channel name. */
  readonly topics: Readonly<Record<string, ITopic>>;
}

export interface SelfMonitoringProps {
  /** The pollers to watch, with each source's period. */
  readonly pollers: readonly {
    readonly source: SourceName;
    readonly everyMs: number;
    readonly fn: IFunction;
  }[];
  readonly deadLetterQueue: IQueue;
  /** The notifier: every message goes through its step, so a failing one stops them all. */
  readonly notifier: IFunction;
  /** Periods without a successful poll before the dead-man's switch fires. */
  readonly deadMansSwitchPeriods: number;
  /** Where alarm and OK notifications go: the topics of `health.notify`. */
  readonly actions: readonly IAlarmAction[];
  /** Watch SMS spend and failed deliveries. @default no SMS alarms (no channel sends SMS) */
  readonly sms?: SmsMonitoringProps;
}

const FUNCTION_ALARM_PERIOD = Duration.minutes(5);
/** SNS pushes its metrics to CloudWatch every five minutes. */
const SMS_ALARM_PERIOD = Duration.minutes(5);

/**
 * Alarms that say telealert itself stopped working, sent to the on-call channels on ALARM and
 * on OK:
 * - `<source> not polling` (dead-man's switch): no `PollSucceeded` for N periods of the source,
 *   missing data counting as breaching, so a function that never runs or never reports alarms.
 * - `<source> errors` / `<source> throttles`: the Lambda failed or a run was refused because
 *   the previous one was still going.
 * - `dead letters`: a failed run's event is waiting in the dead-letter queue.
 * - `notifier errors`: the notifier's step failed; events wait, owed, until it succeeds, so
 *   nobody is told anything meanwhile.
 * - `messages undeliverable`: a message was owed to a channel with no topic (a deploy removed
 *   or renamed the channel): it was dropped, logged whole, and its people were not told
 *   (contract 6.1 rule 8).
 * - `SMS spend`: the account's SMS spend this month passed 80% of `sms.monthlyBudgetUsd`;
 *   past the limit SNS stops sending SMS within minutes and tells the publisher nothing.
 * - `SMS failed <channel>`: SNS gave up delivering some of the channel's notifications.
 */
export class SelfMonitoring extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: SelfMonitoringProps) {
    super(scope, id);
    for (const { source, everyMs, fn } of props.pollers) {
      const period = Duration.millis(everyMs);
      this.add(`DeadMansSwitch-${source}`, {
        description: `telealert ${source}: no successful poll for ${props.deadMansSwitchPeriods} period(s). The poller is not running, cannot reach the API, or cannot report.`,
        metric: sourceMetric(METRIC_NAMES.pollSucceeded, source, { statistic: 'Sum', period }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: props.deadMansSwitchPeriods,
        treatMissingData: TreatMissingData.BREACHING,
      });
      this.add(`Errors-${source}`, {
        description: `telealert ${source}: the poller Lambda failed (see its log group).`,
        metric: fn.metricErrors({ period: FUNCTION_ALARM_PERIOD, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      this.add(`Throttles-${source}`, {
        description: `telealert ${source}: a run was throttled, the previous run was still going or the account is out of concurrency.`,
        metric: fn.metricThrottles({ period: FUNCTION_ALARM_PERIOD, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
    this.add('Errors-notifier', {
      description:
        'telealert notifier: the notifier Lambda failed (see its log group). Alert events wait, owed in the state table, until a step succeeds: nobody is told anything meanwhile.',
      metric: props.notifier.metricErrors({ period: FUNCTION_ALARM_PERIOD, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.add('MessagesUndeliverable', {
      description:
        'telealert notifier: a message was owed to a channel that has no topic (a deploy removed or renamed the channel before it went out). Nobody got it: it is logged whole in the notifier log group ("message undeliverable"); tell its alerts to the right people by hand.',
      metric: notifierMetric(METRIC_NAMES.messagesUndeliverable, {
        period: FUNCTION_ALARM_PERIOD,
        statistic: 'Sum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.add('DeadLetters', {
      description:
        'telealert: failed runs (a poller, or a queued live calls sample) are waiting in the dead-letter queue; read them, then purge the queue.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: FUNCTION_ALARM_PERIOD,
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.sms) this.addSmsAlarms(props.sms);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(...props.actions);
      alarm.addOkAction(...props.actions);
    }
  }

  private addSmsAlarms({ monthlyBudgetUsd, topics }: SmsMonitoringProps): void {
    const threshold = smsSpendThreshold(monthlyBudgetUsd);
    this.add('SmsSpend', {
      description: `telealert: SMS spend this month reached USD ${threshold}, 80% of sms.monthlyBudgetUsd (USD ${monthlyBudgetUsd}). At the account's SNS spend limit SNS stops sending SMS within minutes, with no error to telealert: raise the limit (SNS console, Text messaging preferences; a Support case above the quota) and sms.monthlyBudgetUsd with it.`,
      metric: smsSpendMetric(SMS_ALARM_PERIOD),
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // SNS reports the spend when it has something to report: a quiet hour keeps the state.
      treatMissingData: TreatMissingData.IGNORE,
    });
    for (const [channel, topic] of Object.entries(topics)) {
      this.add(`SmsFailed-${channel}`, {
        description: `telealert ${channel}: SNS failed to deliver notifications of this channel (an SMS the carrier refused, a DLT template or header mismatch, an opted-out number, or an email bounce). SMS delivery status logs give the reason.`,
        metric: topic.metricNumberOfNotificationsFailed({
          period: SMS_ALARM_PERIOD,
          statistic: 'Sum',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }
  }

  private add(
    id: string,
    options: {
      description: string;
      metric: IMetric;
      threshold: number;
      comparisonOperator: ComparisonOperator;
      evaluationPeriods: number;
      treatMissingData: TreatMissingData;
    },
  ): void {
    const { description, ...alarmProps } = options;
    this.alarms.push(new Alarm(this, id, { alarmDescription: description, ...alarmProps }));
  }
}
