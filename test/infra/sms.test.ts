import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TelealertStack } from '../../infra/stack';
import { FIXTURES, synthStack } from './helpers';

let stack: TelealertStack;
let template: Template;
const ref = (value: string): unknown => stack.resolve(value);

beforeAll(() => {
  ({ stack, template } = synthStack(join(FIXTURES, 'sms-india.yaml')));
}, 60_000);

/** The alarms on `metricName`, by logical id. */
function alarmsOn(on: Template, metricName: string) {
  return on.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } });
}

describe('Construct: TelealertAlerting, SMS monitoring', () => {
  it('alarms once the SMS spend of the month reaches 80% of sms.monthlyBudgetUsd', () => {
    const oncall = ref(stack.alerting.alarmTopics.oncall?.topicArn ?? '');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'SMSMonthToDateSpentUSD',
      Dimensions: Match.absent(),
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 16,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'ignore',
      AlarmActions: [oncall],
      OKActions: [oncall],
    });
  });

  it('alarms on failed deliveries of each channel with SMS subscribers, and only those', () => {
    const oncall = ref(stack.alerting.alarmTopics.oncall?.topicArn ?? '');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'NumberOfNotificationsFailed',
      Dimensions: [
        { Name: 'TopicName', Value: ref(stack.alerting.topics.oncall?.topicName ?? '') },
      ],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [oncall],
      OKActions: [oncall],
    });
    expect(Object.keys(alarmsOn(template, 'NumberOfNotificationsFailed'))).toHaveLength(1);
  });

  it('graphs the spend against the budget and the failed deliveries on the dashboard', () => {
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    for (const text of [
      'SMSMonthToDateSpentUSD',
      'NumberOfNotificationsFailed',
      'SMSSuccessRate',
      'sms.monthlyBudgetUsd',
    ]) {
      expect(body).toContain(text);
    }
  });

  it('adds no SMS alarm when no channel has SMS subscribers', () => {
    const emailOnly = synthStack(join(FIXTURES, 'live-calls-only.yaml')).template;
    expect(alarmsOn(emailOnly, 'SMSMonthToDateSpentUSD')).toEqual({});
    expect(alarmsOn(emailOnly, 'NumberOfNotificationsFailed')).toEqual({});
  });
});
