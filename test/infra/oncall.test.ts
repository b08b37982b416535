import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TelealertStack } from '../../infra/stack';
import { FIXTURES, synthStack } from './helpers';

let stack: TelealertStack;
let template: Template;
const ref = (value: string): unknown => stack.resolve(value);

beforeAll(() => {
  ({ stack, template } = synthStack(join(FIXTURES, 'rotation.yaml')));
}, 180_000);

function subscriptionsOf(topicArn: string) {
  return Object.values(
    template.findResources('AWS::SNS::Subscription', {
      Properties: { TopicArn: ref(topicArn) },
    }),
  ).map((resource) => resource.Properties as Record<string, unknown>);
}

describe('Construct: TelealertAlerting, a channel paging a rotation', () => {
  it("filters each member's SMS and email on the oncall attribute, with the channel's minSeverity except for their handoff and their own call's confirmation", () => {
    const subscriptions = subscriptionsOf(stack.alerting.topics.oncall?.topicArn ?? '');
    const severity = { severity: ['warning', 'critical'] };
    const reaches = (name: string) => ({
      oncall: [name],
      $or: [{ kind: ['handoff', 'ack'] }, severity],
    });
    expect(
      subscriptions
        .map(({ Protocol, Endpoint, FilterPolicy }) => ({ Protocol, Endpoint, FilterPolicy }))
        .sort((a, b) => String(a.Endpoint).localeCompare(String(b.Endpoint))),
    ).toEqual([
      {
        Protocol: 'sms',
        Endpoint: '+919800000001',
        FilterPolicy: { ...reaches('asha'), sms: ['yes'] },
      },
      {
        Protocol: 'sms',
        Endpoint: '+919800000002',
        FilterPolicy: { ...reaches('ravi'), sms: ['yes'] },
      },
      { Protocol: 'email', Endpoint: 'asha@example.com', FilterPolicy: reaches('asha') },
      { Protocol: 'email', Endpoint: 'meera@example.com', FilterPolicy: reaches('meera') },
      // The fixed list: every alert message whoever is on call, but not the handoffs.
      {
        Protocol: 'email',
        Endpoint: 'ops-list@example.com',
        FilterPolicy: { ...severity, kind: [{ 'anything-but': ['handoff'] }] },
      },
    ]);
  });

  it("sends the stack's alarms to the fixed list and every member's email, unfiltered", () => {
    const alarmTopic = stack.alerting.alarmTopics.oncall?.topicArn ?? '';
    expect(alarmTopic).not.toBe(stack.alerting.topics.oncall?.topicArn);
    const subscriptions = subscriptionsOf(alarmTopic);
    expect(
      subscriptions.map(({ Protocol, Endpoint, FilterPolicy }) => ({
        Protocol,
        Endpoint,
        FilterPolicy,
      })),
    ).toEqual(
      expect.arrayContaining([
        { Protocol: 'email', Endpoint: 'ops-list@example.com', FilterPolicy: undefined },
        { Protocol: 'email', Endpoint: 'asha@example.com', FilterPolicy: undefined },
        { Protocol: 'email', Endpoint: 'meera@example.com', FilterPolicy: undefined },
      ]),
    );
    expect(subscriptions).toHaveLength(3);
  });

  it("alarms on failed SMS deliveries of the rotation's channel alone: its members have numbers", () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'NumberOfNotificationsFailed',
      Dimensions: [
        { Name: 'TopicName', Value: ref(stack.alerting.topics.oncall?.topicName ?? '') },
      ],
    });
    const failed = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'NumberOfNotificationsFailed' },
    });
    expect(Object.keys(failed)).toHaveLength(1);
  });
});
