import { Duration } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  LogQueryVisualizationType,
  LogQueryWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { HANDOFF_LOG_MESSAGE } from '../shared/observability/metrics';
import type { SourceName } from '../shared/types/config';
import {
  CALL_STATES,
  callsMetric,
  DASHBOARD_PERIOD,
  METRIC_NAMES,
  notifierMetric,
  smsSpendMetric,
  smsSpendThreshold,
  smsSuccessRateMetric,
  sourceMetric,
} from './metrics';

export interface TelealertDashboardProps {
  readonly pollers: readonly {
    readonly source: SourceName;
    readonly fn: IFunction;
    readonly logGroup: ILogGroup;
  }[];
  readonly deadLetterQueue: IQueue;
  /** The live calls poller queues its later samples: graph how that goes. @default false */
  readonly sampleQueue?: boolean;
  /** Graph SMS spend against the budget and failed deliveries. @default no SMS graph */
  readonly sms?: {
    readonly monthlyBudgetUsd: number;
    readonly topics: Readonly<Record<string, ITopic>>;
  };
  /** The notifier's function and log group: its messages, the events it took in, its errors. */
  readonly notifier?: { readonly fn: IFunction; readonly logGroup: ILogGroup };
  /**
   * A channel pages a rotation (contract section 8): a "Who is on call" table of the handoffs
   * the notifier logs, read with Logs Insights (no custom metric). @default false
   */
  readonly rotations?: boolean;
}

const WIDTH = 12;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard: what the API shows (calls by state, ringing calls, pending
 * payments), what telealert sent, how the API behaves (latency, errors) and whether the
 * functions are healthy. Custom metrics only where an alarm needs the same figure or the
 * figure is a gauge the graph reads each minute (calls by state); the rest are Logs Insights
 * queries of the functions' log lines, billed per query when the dashboard is looked at
 * instead of per metric and month ([Decisions](../docs/decisions.md#the-bill)).
 */
export class TelealertDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: TelealertDashboardProps) {
    super(scope, id);
    const period = DASHBOARD_PERIOD;
    const sources = props.pollers.map((p) => p.source);
    const logsOf = (source: SourceName) =>
      props.pollers.filter((p) => p.source === source).map((p) => p.logGroup.logGroupName);
    const pollerLogs = props.pollers.map((p) => p.logGroup.logGroupName);
    const widgets: IWidget[] = [];
    if (sources.includes('live_calls')) {
      widgets.push(
        graph(
          'Calls by state',
          CALL_STATES.map((state) =>
            callsMetric(state, { statistic: 'Maximum', period, label: state }),
          ),
        ),
        graph('Ringing calls', [
          callsMetric('ringing', { statistic: 'Maximum', period, label: 'ringing' }),
        ]),
      );
    }
    if (props.sampleQueue) {
      widgets.push(
        logQuery('Live calls samples', logsOf('live_calls'), [
          'filter message in ["samples queued", "queued sample dropped"]',
          'stats sum(queued) as queued, sum(notQueued) as taken_by_the_scheduled_run, sum(dropped) as dropped by bin(1m)',
        ]),
      );
    }
    if (sources.includes('payments')) {
      widgets.push(
        logQuery('Pending payments', logsOf('payments'), [
          'filter message = "poll succeeded" and ispresent(pending)',
          'stats max(pending) as pending by bin(5m)',
        ]),
      );
    }
    if (props.notifier) {
      const logs = [props.notifier.logGroup.logGroupName];
      widgets.push(
        logQuery('Messages (what reached people)', logs, [
          'filter message = "notifier round"',
          [
            'stats sum(messagesSent) as messages_sent',
            'sum(smsHeld) as sms_held_by_the_cap',
            'sum(digests) as digests',
            'sum(eventsLeftOwed) as events_left_for_the_next_round',
            'sum(eventsNotMarkedSent) as events_not_marked_sent',
            'sum(alertsNotFollowed) as alerts_not_followed by bin(5m)',
          ].join(', '),
        ]),
        logQuery(
          'Notifications sent',
          logs,
          [
            'filter message = "alert events taken in"',
            'stats sum(events) as events by source, rule, status',
            'sort events desc',
          ],
          LogQueryVisualizationType.TABLE,
        ),
      );
    }
    if (props.notifier && props.rotations === true) {
      widgets.push(
        logQuery(
          'Who is on call',
          [props.notifier.logGroup.logGroupName],
          [
            'fields @timestamp, channel, oncall, until',
            `filter message = "${HANDOFF_LOG_MESSAGE}"`,
            'sort @timestamp desc',
            'limit 20',
          ],
          LogQueryVisualizationType.TABLE,
        ),
      );
    }
    widgets.push(
      logQuery('API latency (ms)', pollerLogs, [
        'filter ispresent(apiMs)',
        'stats pct(apiMs, 90) as p90, max(apiMs) as max by bin(1m)',
      ]),
      logQuery('API errors', pollerLogs, [
        'filter message = "API request failed"',
        'stats count(*) as errors by bin(1m)',
      ]),
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
        'Lambda errors and throttles',
        [
          ...props.pollers.flatMap(({ source, fn }) => [
            fn.metricErrors({ period, label: `errors ${source}` }),
            fn.metricThrottles({ period, label: `throttles ${source}` }),
          ]),
          ...(props.notifier
            ? [
                props.notifier.fn.metricErrors({ period, label: 'errors notifier' }),
                props.notifier.fn.metricThrottles({ period, label: 'throttles notifier' }),
              ]
            : []),
        ],
        [
          props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'dead letters' }),
          ...(props.notifier
            ? [
                notifierMetric(METRIC_NAMES.messagesUndeliverable, {
                  statistic: 'Sum',
                  period,
                  label: 'messages undeliverable',
                }),
              ]
            : []),
        ],
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
        markdown:
          "# telealert\nWhat the telephony API shows, what was sent, and the functions' health.",
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

/**
 * A Logs Insights graph (a line per aggregate, by time) or table of the functions' log lines;
 * one command a line (CDK joins them with pipes).
 */
function logQuery(
  title: string,
  logGroupNames: string[],
  queryLines: string[],
  view: LogQueryVisualizationType = LogQueryVisualizationType.LINE,
): LogQueryWidget {
  return new LogQueryWidget({
    title,
    logGroupNames,
    queryLines,
    view,
    width: WIDTH,
    height: HEIGHT,
  });
}
