import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SourceName } from '../shared/types/config';
import {
  DASHBOARD_PERIOD,
  METRIC_NAMES,
  type MetricName,
  searchMetric,
  smsSpendMetric,
  smsSpendThreshold,
  smsSuccessRateMetric,
  sourceMetric,
} from './metrics';

export interface TelealertDashboardProps {
  readonly pollers: readonly { readonly source: SourceName; readonly fn: IFunction }[];
  readonly deadLetterQueue: IQueue;
  /** The live calls poller queues its later samples: graph how that goes. @default false */
  readonly sampleQueue?: boolean;
  /** Graph SMS spend against the budget and failed deliveries. @default no SMS graph */
  readonly sms?: {
    readonly monthlyBudgetUsd: number;
    readonly topics: Readonly<Record<string, ITopic>>;
  };
  /** The notifier's function: its messages, the SMS the cap held, digests, errors. */
  readonly notifier?: IFunction;
}

const WIDTH = 12;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard: what the API shows (calls by state, ringing calls, pending
 * payments), what telealert sent, how the API behaves (latency, errors) and whether the
 * pollers are healthy.
 */
export class TelealertDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: TelealertDashboardProps) {
    super(scope, id);
    const period = DASHBOARD_PERIOD;
    const sources = props.pollers.map((p) => p.source);
    const widgets: IWidget[] = [];
    if (sources.includes('live_calls')) {
      widgets.push(
        graph('Calls by state', [
          searchMetric(METRIC_NAMES.callsByState, 'Maximum', period, 'calls'),
        ]),
        graph('Ringing calls', [
          sourceMetric(METRIC_NAMES.ringingCalls, 'live_calls', { statistic: 'Maximum', period }),
        ]),
      );
    }
    if (props.sampleQueue) {
      const samples = (name: MetricName, label: string) =>
        sourceMetric(name, 'live_calls', { statistic: 'Sum', period, label });
      widgets.push(
        graph('Live calls samples', [
          samples(METRIC_NAMES.samplesQueued, 'queued'),
          samples(METRIC_NAMES.samplesNotQueued, 'taken by the scheduled run'),
          samples(METRIC_NAMES.samplesDropped, 'dropped (late, unplanned, unreadable)'),
        ]),
      );
    }
    if (sources.includes('payments')) {
      widgets.push(
        graph('Pending payments', [
          sourceMetric(METRIC_NAMES.pendingPayments, 'payments', {
            statistic: 'Maximum',
            period: Duration.minutes(5),
          }),
        ]),
      );
    }
    if (props.notifier) {
      const count = (name: MetricName, label: string) =>
        searchMetric(name, 'Sum', Duration.minutes(5), label);
      widgets.push(
        graph(
          'Messages (what reached people)',
          [
            count(METRIC_NAMES.messagesSent, 'messages sent'),
            count(METRIC_NAMES.smsHeldByCap, 'SMS held by the cap'),
            count(METRIC_NAMES.digests, 'digests'),
            count(METRIC_NAMES.eventsLeftOwed, 'events left for the next round'),
            count(METRIC_NAMES.eventsNotMarkedSent, 'events not marked sent'),
            count(METRIC_NAMES.alertsNotFollowed, 'alerts not followed (past the limit)'),
          ],
          [
            props.notifier.metricErrors({ period, label: 'notifier errors' }),
            props.notifier.metricThrottles({ period, label: 'notifier throttles' }),
          ],
        ),
      );
    }
    widgets.push(
      graph('Notifications sent', [
        searchMetric(METRIC_NAMES.notificationsSent, 'Sum', Duration.minutes(5), 'sent'),
      ]),
      graph('API latency (ms)', [
        searchMetric(METRIC_NAMES.apiLatency, 'p90', period, 'p90'),
        searchMetric(METRIC_NAMES.apiLatency, 'Maximum', period, 'max'),
      ]),
      graph('API errors', [searchMetric(METRIC_NAMES.apiErrors, 'Sum', period, 'errors')]),
      graph(
        'Poll health',
        sources.flatMap((source) => [
          sourceMetric(METRIC_NAMES.pollSucceeded, source, {
            statistic: 'Sum',
            period,
            label: `succeeded ${source}`,
          }),
          sourceMetric(METRIC_NAMES.pollFailed, source, {
            statistic: 'Sum',
            period,
            label: `failed ${source}`,
          }),
        ]),
      ),
      graph(
        'Poller Lambda',
        props.pollers.flatMap(({ source, fn }) => [
          fn.metricErrors({ period, label: `errors ${source}` }),
          fn.metricThrottles({ period, label: `throttles ${source}` }),
        ]),
        [props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'dead letters' })],
      ),
    );
    if (props.sms) {
      const fiveMinutes = Duration.minutes(5);
      widgets.push(
        new GraphWidget({
          title: 'SMS spend this month (USD)',
          left: [smsSpendMetric(fiveMinutes, 'spent')],
          leftAnnotations: [
            { value: props.sms.monthlyBudgetUsd, label: 'sms.monthlyBudgetUsd' },
            {
              value: smsSpendThreshold(props.sms.monthlyBudgetUsd),
              label: 'alarm',
            },
          ],
          width: WIDTH,
          height: HEIGHT,
        }),
        graph(
          'SMS deliveries',
          Object.entries(props.sms.topics).map(([channel, topic]) =>
            topic.metricNumberOfNotificationsFailed({
              period: fiveMinutes,
              statistic: 'Sum',
              label: `failed ${channel}`,
            }),
          ),
          [smsSuccessRateMetric(fiveMinutes)],
        ),
      );
    }
    this.dashboard = new Dashboard(this, 'Dashboard');
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '# telealert\nWhat the telephony API shows, what was sent, and poller health.',
        width: 24,
        height: 2,
      }),
    );
    // Two graphs per row.
    for (let i = 0; i < widgets.length; i += 2)
      this.dashboard.addWidgets(...widgets.slice(i, i + 2));
  }
}

function graph(title: string, left: IMetric[], right?: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT });
}
