import { describe, expect, it } from 'vitest';
import type { DeployedStack } from '../../../cli/deploy-local/stack';
import { describeDelivery, describeStack } from '../../../cli/deploy-local/summary';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:Telealert-oncallTopic-ABC';
const ALARM_TOPIC = 'arn:aws:sns:us-east-1:123456789012:Telealert-oncallAlarmTopic-DEF';

const stack: DeployedStack = {
  name: 'Telealert',
  status: 'CREATE_COMPLETE',
  outputs: { TopicArnoncall: TOPIC, AlarmTopicArnoncall: ALARM_TOPIC, TableName: 'state-1' },
  resources: [
    { logicalId: 'Fn', type: 'AWS::Lambda::Function', physicalId: 'poller-1' },
    { logicalId: 'Role', type: 'AWS::IAM::Role', physicalId: 'role-1' },
    { logicalId: 'Role2', type: 'AWS::IAM::Role', physicalId: 'role-2' },
    { logicalId: 'Notifier', type: 'AWS::Pipes::Pipe', physicalId: 'pipe-1' },
  ],
  notCreated: [{ logicalId: 'CDKMetadata', type: 'AWS::CDK::Metadata' }],
  functions: [
    {
      logicalId: 'Fn',
      name: 'poller-1',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:poller-1',
      runtime: 'nodejs24.x',
      architectures: ['arm64'],
      memoryMb: 256,
      timeoutS: 55,
      reservedConcurrency: 1,
      environment: { TELEALERT_TABLE: 'state-1' },
      eventInvokeConfig: {
        maximumRetryAttempts: 0,
        maximumEventAgeInSeconds: 60,
        onFailure: 'arn:aws:sqs:us-east-1:123456789012:dead-letters',
      },
      schedules: [{ rule: 'schedule-1', expression: 'rate(1 minute)', state: 'ENABLED' }],
      eventSources: [{ arn: 'arn:aws:sqs:us-east-1:123456789012:samples', batchSize: 1 }],
    },
    {
      logicalId: 'Notifier',
      name: 'notifier-1',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:notifier-1',
      runtime: 'nodejs24.x',
      architectures: ['arm64'],
      memoryMb: 256,
      timeoutS: 50,
      reservedConcurrency: 1,
      environment: { TELEALERT_TOPICS: JSON.stringify({ oncall: TOPIC }) },
      schedules: [{ rule: 'schedule-2', expression: 'rate(1 minute)', state: 'ENABLED' }],
      eventSources: [
        {
          arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/state-1/stream/2026-11-25T18:59:23.781509',
          batchSize: 100,
          startingPosition: 'LATEST',
          filters: [{ dynamodb: { Keys: { sk: { S: ['state'] } } } }],
        },
      ],
    },
  ],
  topics: [
    {
      logicalId: 'Topic',
      arn: TOPIC,
      kmsMasterKeyId: 'key-1',
      subscriptions: [
        {
          arn: `${TOPIC}:1`,
          protocol: 'sms',
          endpoint: '+12025550100',
          filterPolicy: { severity: ['warning', 'critical'] },
          rawMessageDelivery: false,
        },
        {
          arn: `${TOPIC}:2`,
          protocol: 'sms',
          endpoint: '+12025550101',
          filterPolicy: { oncall: ['asha'], sms: ['yes'] },
          rawMessageDelivery: false,
        },
      ],
    },
    { logicalId: 'AlarmTopic', arn: ALARM_TOPIC, subscriptions: [] },
  ],
  alarms: [
    {
      logicalId: 'Alarm',
      name: 'Telealert-DeadMansSwitch-1',
      namespace: 'Telealert',
      metricName: 'PollSucceeded',
      dimensions: { source: 'live_calls' },
      statistic: 'Sum',
      periodS: 60,
      evaluationPeriods: 3,
      threshold: 1,
      comparison: 'LessThanThreshold',
      alarmActions: [ALARM_TOPIC],
      okActions: [ALARM_TOPIC],
    },
  ],
  tables: [
    {
      logicalId: 'State',
      name: 'state-1',
      keys: ['pk (HASH)', 'sk (RANGE)'],
      billingMode: 'PAY_PER_REQUEST',
      ttl: { attribute: 'expiresAt', status: 'ENABLED' },
      pointInTimeRecovery: 'ENABLED',
      sse: 'ENABLED',
      deletionProtection: true,
    },
  ],
  queues: [],
  logGroups: [],
  chats: [],
};

describe('Function: describeStack', () => {
  const text = describeStack(stack);

  it('shows each function with its runtime, schedule, event source and failure destination', () => {
    expect(text).toContain(
      [
        '  poller-1',
        '    nodejs24.x, arm64, 256 MB, timeout 55 s, reserved concurrency 1',
        '    schedule: rate(1 minute) (ENABLED)',
        '    invoked by: samples (batch 1)',
        '    async invocations: 0 retries, dropped after 60 s, failures to dead-letters',
        '    publishes nothing: commits its events to the table for the notifier',
      ].join('\n'),
    );
    expect(text).toContain(
      ['  notifier-1', '    nodejs24.x, arm64, 256 MB, timeout 50 s, reserved concurrency 1'].join(
        '\n',
      ),
    );
    expect(text).toContain('    publishes to: oncall');
  });

  it("names a table's stream by its table, with where reading starts and the filter", () => {
    expect(text).toContain(
      '    invoked by: the stream of table state-1 (batch 100, from LATEST, filter {"dynamodb":{"Keys":{"sk":{"S":["state"]}}}})',
    );
  });

  it('names topics by their channel from the outputs and lists subscriptions with their filter policies', () => {
    expect(text).toContain(
      '  oncall: Telealert-oncallTopic-ABC (KMS-encrypted)\n    sms +12025550100  filter {"severity":["warning","critical"]}',
    );
    expect(text).toContain(
      '  oncall (alarms): Telealert-oncallAlarmTopic-DEF\n    no subscriptions',
    );
  });

  it('names the rotation member a subscription filtered on oncall reaches', () => {
    expect(text).toContain(
      '    sms +12025550101  filter {"oncall":["asha"],"sms":["yes"]}  (asha\'s: only while on call)',
    );
  });

  it('shows each alarm as metric, condition and the channel it notifies', () => {
    expect(text).toContain(
      '  Telealert-DeadMansSwitch-1: Telealert/PollSucceeded (source=live_calls) Sum < 1 for 3 x 60 s -> oncall (alarms)',
    );
  });

  it('shows the table settings', () => {
    expect(text).toContain(
      '  state-1: keys pk (HASH), sk (RANGE); PAY_PER_REQUEST; TTL expiresAt ENABLED; point-in-time recovery ENABLED; encryption ENABLED',
    );
  });

  it('counts resources of other types, new ones included, and names what the simulator did not create', () => {
    expect(text).toContain('Other resources\n  AWS::IAM::Role x 2\n  AWS::Pipes::Pipe x 1');
    expect(text).toContain('not created by the simulator\n  AWS::CDK::Metadata (CDKMetadata)');
  });

  it("says which chat channel would receive which channel's messages, with its buttons, and nothing without chat", () => {
    expect(text).not.toContain('Chat (');
    const chat = describeStack({
      ...stack,
      chats: [
        {
          logicalId: 'Slack',
          kind: 'Slack',
          where: 'workspace T0123ABCD, channel C0456EFGH',
          topics: [TOPIC],
          buttons: ['Telealert-ack', 'Telealert-silence'],
        },
      ],
    });
    expect(chat).toContain(
      [
        '  Slack workspace T0123ABCD, channel C0456EFGH',
        '    would receive: every message to oncall, as its chat body (the https body of the publish)',
        '    buttons: Telealert-ack, Telealert-silence',
      ].join('\n'),
    );
  });
});

describe('Function: describeDelivery', () => {
  const [topic] = stack.topics;
  const body = JSON.stringify({
    sms: 'FIRING too-many-ringing: 9 calls ringing',
    subject: 's',
  });

  it('names the rotation member a subscription reaches, and a fixed number by itself', () => {
    if (topic === undefined) throw new Error('the fixture has a topic');
    const [fixed, member] = topic.subscriptions;
    if (fixed === undefined || member === undefined) throw new Error('two subscriptions');
    const queueUrl = 'http://127.0.0.1/q';
    expect(
      describeDelivery({ topic, subscription: member, queueUrl }, [{ Body: body }], stack),
    ).toEqual([
      '    -> oncall sms +12025550101 (asha, on call): FIRING too-many-ringing: 9 calls ringing',
    ]);
    expect(
      describeDelivery({ topic, subscription: fixed, queueUrl }, [{ Body: body }], stack),
    ).toEqual(['    -> oncall sms +12025550100: FIRING too-many-ringing: 9 calls ringing']);
  });
});
