import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeployedHandler } from '../../cli/deploy-local/handlers';
import { scheduledEvent } from '../../cli/deploy-local/handlers';
import { accountInventory } from '../../cli/deploy-local/inventory';
import {
  type Listener,
  type Listeners,
  listenToSubscriptions,
} from '../../cli/deploy-local/listen';
import type { DeployedStack } from '../../cli/deploy-local/stack';
import { StreamMapping } from '../../cli/deploy-local/stream';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import { NOTIFIER_STREAM_FILTER } from '../../infra/notifier';
import { EMBEDDED_CONFIG_FILE, embedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import { ManualClock } from '../../simulator/clock';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { type Deployment, deployRules } from './deployed';
import { DID_A, e2eScenario, MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'stack-rules.yaml');
const FIXTURE_BASE_URL = 'http://127.0.0.1:9';
const clock = new ManualClock(T0);
let simulator: RunningSimulator;
let rules: string;
let deployment: Deployment;
let listeners: Listeners;
/** The table's stream as the notifier's event source mapping reads it. */
let notifierStream: StreamMapping;

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

const stack = (): DeployedStack => deployment.stack;

/** The channel (or `<channel> (alarms)`) whose topic `arn` is, from the stack's outputs. */
function channelOf(arn: string): string {
  for (const [key, value] of Object.entries(stack().outputs)) {
    if (value !== arn) continue;
    if (key.startsWith('TopicArn')) return key.slice('TopicArn'.length);
    if (key.startsWith('AlarmTopicArn')) return `${key.slice('AlarmTopicArn'.length)} (alarms)`;
  }
  return `unnamed topic ${arn}`;
}

/** Every deployed email/SMS subscription as `channel protocol:endpoint` -> its filter policy. */
function subscriptionPolicies(): Record<string, unknown> {
  return Object.fromEntries(
    stack().topics.flatMap((topic) =>
      topic.subscriptions
        .filter((s) => s.protocol !== 'sqs')
        .map((s) => [`${channelOf(topic.arn)} ${s.protocol}:${s.endpoint}`, s.filterPolicy]),
    ),
  );
}

function poller(source: string): DeployedHandler {
  const fn = stack().functions.find((f) =>
    f.logicalId.includes(`Poller${source.replace('_', '')}`),
  );
  const handler = fn && deployment.handlers.get(fn.logicalId);
  if (!handler) throw new Error(`no deployed poller of ${source}`);
  return handler;
}

function notifier(): DeployedHandler {
  const fn = stack().functions.find((f) => f.logicalId.includes('NotifierFunction'));
  const handler = fn && deployment.handlers.get(fn.logicalId);
  if (!handler) throw new Error('no deployed notifier');
  return handler;
}

/** Runs the notifier's deployed code with what its stream mapping would hand it since the last time. */
function streamToNotifier(): Promise<NotifierSummary[]> {
  return notifierStream.deliver(
    async (event) => (await notifier().invoke(event, 50_000)) as NotifierSummary,
  );
}

/** Runs a poller's deployed code as its schedule would, once. */
async function invoke(source: string): Promise<Record<string, unknown>> {
  const handler = poller(source);
  return (await handler.invoke(scheduledEvent(handler.fn, Date.now()), 55_000)) as Record<
    string,
    unknown
  >;
}

function listener(channel: string, protocol: string, endpoint: string): Listener {
  const found = listeners.all.find(
    (l) =>
      channelOf(l.topic.arn) === channel &&
      l.subscription.protocol === protocol &&
      l.subscription.endpoint === endpoint,
  );
  if (!found) throw new Error(`no ${protocol} subscription for ${endpoint} on ${channel}`);
  return found;
}

/** Every message each subscriber has been sent so far, by `channel protocol:endpoint`. */
const seen = new Map<string, Message[]>();

/**
 * `rule:status:labels:severity` of each alert in the messages a channel's subscriber would have
 * been sent (severity: the message's attribute, its highest).
 */
async function received(channel: string, protocol: string, endpoint: string): Promise<string[]> {
  const messages = await listeners.drain(listener(channel, protocol, endpoint));
  const name = `${channel} ${protocol}:${endpoint}`;
  seen.set(name, [...(seen.get(name) ?? []), ...messages]);
  return messages.flatMap(brief).sort();
}

/** A message's attributes as name -> string value. */
function attributesOf(message: Message): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.StringValue,
    ]),
  );
}

function brief(message: Message): string[] {
  const body = JSON.parse(message.Body ?? '{}') as {
    alerts: { rule: string; status: string; labels: Record<string, string> }[];
  };
  const severity = message.MessageAttributes?.severity?.StringValue;
  return body.alerts.map(
    (alert) => `${alert.rule}:${alert.status}:${Object.values(alert.labels).join(',')}:${severity}`,
  );
}

beforeAll(async () => {
  simulator = await startSimulator({ port: 0, scenario: e2eScenario, clock, token: 'token-1' });
  rules = (await readFile(FIXTURE, 'utf8')).replace(FIXTURE_BASE_URL, simulator.url);
  deployment = await deployRules(rules, {
    prefix: 'e2e-stack',
    tokenParameter: '/e2e-stack/api-token',
    token: 'token-1',
  });
  listeners = await listenToSubscriptions(stack().topics, 'e2e-stack-listener');
  const mapping = notifier().fn.eventSources.find((source) => source.arn.includes('/stream/'));
  if (!mapping) throw new Error('the notifier has no stream event source');
  notifierStream = await StreamMapping.open({
    streamArn: mapping.arn,
    ...(mapping.filters ? { filters: mapping.filters } : {}),
    ...(mapping.batchSize ? { batchSize: mapping.batchSize } : {}),
  });
  vi.useFakeTimers({ toFake: ['Date'] });
}, 300_000);

afterAll(async () => {
  vi.useRealTimers();
  notifierStream?.close();
  await simulator?.close();
  await deployment?.close();
});

// One timeline: each test continues where the previous one left off, up to the destroy.
describe('The stack deployed by `cdk deploy` on moto', () => {
  it("outputs each channel topic, the alarm topic of a filtered health channel, the table, the operators' policy and the dashboard", () => {
    const { outputs, topics, tables } = stack();
    expect(Object.keys(outputs).sort()).toEqual([
      'AlarmTopicArnmanagers',
      'DashboardUrl',
      'OperatorPolicyArn',
      'TableName',
      'TopicArnfinance',
      'TopicArnmanagers',
      'TopicArnoncall',
    ]);
    expect(topics.map((t) => t.arn)).toEqual(
      expect.arrayContaining(
        Object.entries(outputs).flatMap(([k, v]) => (k.includes('Topic') ? [v] : [])),
      ),
    );
    expect(tables.map((t) => t.name)).toEqual([outputs.TableName]);
    expect(outputs.OperatorPolicyArn).toMatch(/^arn:aws:iam::123456789012:policy\//);
  });

  it('creates every resource of the template: none is skipped by the simulator', () => {
    // AWS::CDK::Metadata is the CDK's version report, a resource only CloudFormation reads.
    // A type moto 5.2.1 skips shows here: give it a model in cli/deploy-local/moto_server.py.
    expect(stack().notCreated.map((r) => r.type)).toEqual(['AWS::CDK::Metadata']);
  });

  it('runs each poller on Node.js 24, arm64, on its schedule, one run at a time, failures to the dead-letter queue', () => {
    const { queues, tables, topics } = stack();
    const deadLetters = queues.find((q) => q.logicalId.includes('DeadLetters'))?.attributes
      .QueueArn;
    expect(deadLetters).toBeDefined();
    for (const [source, rate] of [
      ['live_calls', 'rate(1 minute)'],
      ['payments', 'rate(5 minutes)'],
    ] as const) {
      const { fn } = poller(source);
      expect(fn).toMatchObject({
        runtime: 'nodejs24.x',
        architectures: ['arm64'],
        memoryMb: 256,
        reservedConcurrency: 1,
        eventInvokeConfig: { maximumRetryAttempts: 0, onFailure: deadLetters },
      });
      expect(fn.schedules.map((s) => [s.expression, s.state])).toEqual([[rate, 'ENABLED']]);
      expect(fn.environment.TELEALERT_TABLE).toBe(tables[0]?.name);
      // A poller commits its events for the notifier: it is given no topics.
      expect(fn.environment).not.toHaveProperty('TELEALERT_TOPICS');
    }
    const channels = JSON.parse(notifier().fn.environment.TELEALERT_TOPICS ?? '{}') as Record<
      string,
      string
    >;
    expect(Object.keys(channels).sort()).toEqual(['finance', 'managers', 'oncall']);
    for (const arn of Object.values(channels)) expect(topics.map((t) => t.arn)).toContain(arn);
  });

  it("invokes the notifier from the table's stream (keys only), filtered to the sources' state items, and every minute", () => {
    const { fn } = notifier();
    const table = stack().tables[0];
    expect(table?.streamViewType).toBe('KEYS_ONLY');
    expect(fn.eventSources).toEqual([
      {
        arn: table?.streamArn,
        batchSize: 100,
        startingPosition: 'LATEST',
        filters: [NOTIFIER_STREAM_FILTER],
      },
    ]);
    expect(fn.schedules.map((s) => [s.expression, s.state])).toEqual([
      ['rate(1 minute)', 'ENABLED'],
    ]);
    expect(fn.reservedConcurrency).toBe(1);
  });

  it('ships the rules file and the config validated from it in each deployed function', () => {
    for (const handler of deployment.handlers.values()) {
      expect(readFileSync(join(handler.directory, 'telealert.yaml'), 'utf8')).toBe(rules);
      // What the runtime reads at cold start: the same rules, validated at synth.
      expect(readFileSync(join(handler.directory, EMBEDDED_CONFIG_FILE), 'utf8')).toBe(
        embedConfig(parseConfig(rules, 'telealert.yaml'), new Date().getUTCFullYear()).text,
      );
    }
  });

  it('keeps the state table on demand, encrypted, with TTL on expiresAt, point-in-time recovery and deletion protection', () => {
    expect(stack().tables).toEqual([
      expect.objectContaining({
        keys: ['pk (HASH)', 'sk (RANGE)'],
        billingMode: 'PAY_PER_REQUEST',
        ttl: { attribute: 'expiresAt', status: 'ENABLED' },
        pointInTimeRecovery: 'ENABLED',
        sse: 'ENABLED',
        deletionProtection: true,
      }),
    ]);
  });

  it("subscribes every address of each channel, with the channel's minSeverity as a filter policy", () => {
    expect(subscriptionPolicies()).toEqual({
      // SMS subscriptions take only messages with an SMS body (attribute sms = yes), and an
      // ack's confirmation (attribute to) only when addressed to their own number.
      'oncall sms:+12025550100': {
        sms: ['yes'],
        $or: [{ to: ['+12025550100'] }, { to: [{ exists: false }] }],
      },
      'oncall email:oncall@example.com': undefined,
      'managers sms:+12025550101': {
        sms: ['yes'],
        $or: [{ to: ['+12025550101'] }, { to: [{ exists: false }], severity: ['critical'] }],
      },
      'managers email:managers@example.com': { severity: ['critical'] },
      'finance email:finance@example.com': { severity: ['warning', 'critical'] },
      // health.notify is [managers]: its alarms go through a topic of their own, unfiltered.
      'managers (alarms) sms:+12025550101': undefined,
      'managers (alarms) email:managers@example.com': undefined,
    });
  });

  it("sends the pollers' alarms to the health channel's alarm topic, when they fire and when they recover", () => {
    const alarmTopic = stack().outputs.AlarmTopicArnmanagers;
    const pollerAlarms = stack().alarms.filter(
      (a) => a.dimensions.source !== undefined || a.dimensions.FunctionName !== undefined,
    );
    expect(pollerAlarms.map((a) => `${a.namespace}/${a.metricName}`).sort()).toEqual(
      expect.arrayContaining([
        'AWS/Lambda/Errors',
        'AWS/Lambda/Errors',
        'Telealert/PollSucceeded',
        'Telealert/PollSucceeded',
      ]),
    );
    for (const alarm of pollerAlarms) {
      expect(alarm.alarmActions).toEqual([alarmTopic]);
      expect(alarm.okActions).toEqual([alarmTopic]);
    }
    const topics = new Set(stack().topics.map((t) => t.arn));
    for (const alarm of stack().alarms) {
      expect(alarm.alarmActions.length).toBeGreaterThan(0);
      for (const action of alarm.alarmActions) expect(topics).toContain(action);
    }
  });

  it('alarms on SMS spend at 80% of sms.monthlyBudgetUsd and on failed deliveries of each SMS channel', () => {
    const alarmTopic = stack().outputs.AlarmTopicArnmanagers;
    const spend = stack().alarms.filter((a) => a.metricName === 'SMSMonthToDateSpentUSD');
    expect(spend).toMatchObject([
      {
        namespace: 'AWS/SNS',
        dimensions: {},
        statistic: 'Maximum',
        threshold: 4,
        comparison: 'GreaterThanOrEqualToThreshold',
        alarmActions: [alarmTopic],
        okActions: [alarmTopic],
      },
    ]);
    const failed = stack().alarms.filter((a) => a.metricName === 'NumberOfNotificationsFailed');
    const topicName = (channel: string) => stack().outputs[`TopicArn${channel}`]?.split(':').pop();
    expect(failed.map((a) => a.dimensions.TopicName).sort()).toEqual(
      [topicName('managers'), topicName('oncall')].sort(),
    );
    for (const alarm of failed) {
      expect(alarm).toMatchObject({ namespace: 'AWS/SNS', statistic: 'Sum', threshold: 1 });
      expect(alarm.alarmActions).toEqual([alarmTopic]);
    }
  });

  it('delivers firing alerts to every subscriber of their channels, per minSeverity', async () => {
    at(30_000);
    // The poller commits its two events and sends nothing itself; its commit invokes the notifier.
    expect(await invoke('live_calls')).toMatchObject({
      samples: 1,
      sent: 0,
      owedLeft: 2,
      failures: 0,
    });
    expect(await streamToNotifier()).toEqual([expect.objectContaining({ taken: 2 })]);
    const both = ['any-ringing:firing::warning', `too-many-ringing:firing:${DID_A}:critical`];
    expect(await received('oncall', 'sms', '+12025550100')).toEqual(both);
    expect(await received('oncall', 'email', 'oncall@example.com')).toEqual(both);
    const critical = [`too-many-ringing:firing:${DID_A}:critical`];
    expect(await received('managers', 'sms', '+12025550101')).toEqual(critical);
    expect(await received('managers', 'email', 'managers@example.com')).toEqual(critical);

    expect(await invoke('payments')).toMatchObject({ owedLeft: 1, failures: 0 });
    expect(await streamToNotifier()).toEqual([expect.objectContaining({ taken: 1 })]);
    const finance = await received('finance', 'email', 'finance@example.com');
    expect(finance).toHaveLength(1);
    expect(finance[0]).toMatch(/^big-payment:firing:.+:warning$/);
  });

  it('sends resolved messages once the calls are gone, and nothing twice', async () => {
    at(90_000);
    expect(await invoke('live_calls')).toMatchObject({ owedLeft: 0 });
    await streamToNotifier();
    expect(await received('oncall', 'sms', '+12025550100')).toEqual([]);

    at(4 * MINUTE);
    expect(await invoke('live_calls')).toMatchObject({ owedLeft: 2 });
    expect(await streamToNotifier()).toEqual([expect.objectContaining({ taken: 2 })]);
    const both = ['any-ringing:resolved::warning', `too-many-ringing:resolved:${DID_A}:critical`];
    expect(await received('oncall', 'sms', '+12025550100')).toEqual(both);
    expect(await received('oncall', 'email', 'oncall@example.com')).toEqual(both);
    const critical = [`too-many-ringing:resolved:${DID_A}:critical`];
    expect(await received('managers', 'sms', '+12025550101')).toEqual(critical);
    expect(await received('managers', 'email', 'managers@example.com')).toEqual(critical);
    expect(await received('finance', 'email', 'finance@example.com')).toEqual([]);
  });

  it('sends the SMS attributes and the filled DLT template to channels with SMS subscribers only', () => {
    const sms = {
      'AWS.SNS.SMS.SMSType': 'Transactional',
      'AWS.SNS.SMS.SenderID': 'TLALRT',
      'AWS.MM.SMS.EntityId': '1101234567890123456',
      'AWS.MM.SMS.TemplateId': '1107123456789012345',
    };
    // The registered template, each {#var#} holding 1 to 30 characters.
    const template = /^telealert .{1,30}: .{1,30}\. .{1,30} -TLALRT$/;
    for (const name of [
      'oncall sms:+12025550100',
      'oncall email:oncall@example.com',
      'managers sms:+12025550101',
    ]) {
      const messages = seen.get(name) ?? [];
      expect(messages.length).toBeGreaterThan(0);
      for (const message of messages) {
        expect(attributesOf(message)).toMatchObject(sms);
        expect(JSON.parse(message.Body ?? '{}').sms).toMatch(template);
      }
    }
    const finance = seen.get('finance email:finance@example.com') ?? [];
    expect(finance.length).toBeGreaterThan(0);
    for (const message of finance) {
      // A message's own attributes only (the pollers deliver through the notifier).
      expect(Object.keys(attributesOf(message)).sort()).toEqual(['kind', 'severity', 'sms']);
    }
  });

  it('delivers a CloudWatch alarm message (no attributes) to a minSeverity channel through its alarm topic only', async () => {
    const alarm = { AlarmName: 'dead-mans-switch', NewStateValue: 'ALARM' };
    const sns = new SNSClient({});
    try {
      for (const key of ['AlarmTopicArnmanagers', 'TopicArnmanagers']) {
        await sns.send(
          new PublishCommand({
            TopicArn: stack().outputs[key],
            Subject: 'ALARM: "telealert-live_calls-dead-mans-switch"',
            Message: JSON.stringify(alarm),
          }),
        );
      }
    } finally {
      sns.destroy();
    }
    for (const [protocol, endpoint] of [
      ['sms', '+12025550101'],
      ['email', 'managers@example.com'],
    ] as const) {
      const viaAlarms = await listeners.drain(listener('managers (alarms)', protocol, endpoint));
      expect(viaAlarms.map((m) => JSON.parse(m.Body ?? '{}'))).toEqual([alarm]);
      // The channel's own topic filters on `severity`: a message without attributes is dropped,
      // as SNS drops it, which is why the alarms have a topic of their own.
      expect(await listeners.drain(listener('managers', protocol, endpoint))).toEqual([]);
    }
  });

  it('updates the subscriptions and the deployed rules as a changed rules file says', async () => {
    await listeners.close();
    const changed = rules
      .replace('minSeverity: critical', 'minSeverity: warning')
      .replace('email: [finance@example.com]', 'email: [finance@example.com, audit@example.com]')
      .replace('    sms: ["+12025550100"]\n', '');
    expect(changed).not.toBe(rules);
    await deployment.update(changed);
    expect(subscriptionPolicies()).toEqual({
      'oncall email:oncall@example.com': undefined,
      'managers sms:+12025550101': {
        sms: ['yes'],
        $or: [
          { to: ['+12025550101'] },
          { to: [{ exists: false }], severity: ['warning', 'critical'] },
        ],
      },
      'managers email:managers@example.com': { severity: ['warning', 'critical'] },
      'finance email:finance@example.com': { severity: ['warning', 'critical'] },
      'finance email:audit@example.com': { severity: ['warning', 'critical'] },
      'managers (alarms) sms:+12025550101': undefined,
      'managers (alarms) email:managers@example.com': undefined,
    });
    for (const handler of deployment.handlers.values()) {
      expect(readFileSync(join(handler.directory, 'telealert.yaml'), 'utf8')).toBe(changed);
    }
  }, 300_000); // a synth and a `cdk deploy` update: minutes on a loaded machine

  it('destroys everything but what docs/deploy.md says is kept: the state table and the log groups', async () => {
    const { tables, logGroups } = stack();
    // The two pollers' and the notifier's.
    expect(logGroups).toHaveLength(3);
    await deployment.destroy();
    expect(await accountInventory()).toEqual({
      topics: [],
      subscriptions: [],
      functions: [],
      tables: tables.map((t) => t.name),
      queues: [],
      alarms: [],
      logGroups: logGroups.map((g) => g.name).sort(),
      rules: [],
    });
  });
});
