import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoNotifierStore } from '../../functions/adapters/dynamodb-notifier';
import { SnsMessagePublisher } from '../../functions/adapters/sns-messages';
import { severityFilter, smsFilter } from '../../infra/topics';
import type { Message } from '../../shared/notifier/types';
import { MemoryMessagePublisher } from '../../shared/ports/memory';
import { notifierStep } from '../../shared/runner/notifier-step';
import { config, MINUTE, T0 } from '../engine/fixtures';
import { distinctAlerts, flappingWeekend, OFFICE } from '../notifier/weekend';
import { describeNotifierStoreContract, sampleMessage } from '../ports/notifier-contract';
import { createFakeStack, createStateTable, type FakeStack } from '../support/aws';
import { type Moto, startMoto } from './moto';

let moto: Moto;
let dynamodb: DynamoDBClient;
let sns: SNSClient;
let sqs: SQSClient;
let stack: FakeStack;
let smsQueue: string;
let tables = 0;

/** The filter policy the stack gives an SMS subscription of a `minSeverity: warning` channel. */
const SMS_FILTER = JSON.stringify(
  Object.fromEntries(
    Object.entries(smsFilter('+919800000001', severityFilter('warning'))).map(([name, f]) => [
      name,
      f.conditions,
    ]),
  ),
);

beforeAll(async () => {
  moto = await startMoto();
  moto.applyEnv();
  dynamodb = new DynamoDBClient({});
  sns = new SNSClient({});
  sqs = new SQSClient({});
  stack = await createFakeStack({
    prefix: 'msg',
    channels: { oncall: {} },
    tokenParameter: '/msg/token',
    token: 'unused',
  });
  // An SQS stand-in for the channel's phone: subscribed with the SMS subscriptions' policy.
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'msg-oncall-sms' }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  await sns.send(
    new SubscribeCommand({
      TopicArn: stack.topics.oncall,
      Protocol: 'sqs',
      Endpoint: Attributes?.QueueArn,
      Attributes: { RawMessageDelivery: 'true', FilterPolicy: SMS_FILTER },
    }),
  );
  smsQueue = QueueUrl ?? '';
});
afterAll(async () => {
  dynamodb?.destroy();
  sns?.destroy();
  sqs?.destroy();
  stack?.destroy();
  await moto?.stop();
});

async function freshStore(): Promise<DynamoNotifierStore> {
  tables += 1;
  const tableName = `notifier-state-${tables}`;
  await createStateTable(dynamodb, tableName);
  return new DynamoNotifierStore({ client: dynamodb, tableName, now: () => T0 });
}

async function smsBodies(): Promise<string[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: smsQueue, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return Messages.map((message) => message.Body ?? '');
}

describeNotifierStoreContract('DynamoDB on moto', freshStore);

describe('Class: DynamoNotifierStore, a weekend of deferred events (on moto)', () => {
  it('commits the state 50 alerts flapping every 3 minutes all weekend leave, and reads it back', async () => {
    const store = await freshStore();
    // 63,000 events deferred: unfolded, about 1 MB compressed, which the item would refuse.
    const { state } = flappingWeekend(50, 3 * MINUTE);
    expect(await store.commitNotifier(0, { state, consumed: {}, owed: [] })).toBe(1);
    expect((await store.loadNotifier()).state).toEqual(state);
  });

  it('tells the digest early, and commits, when more distinct alerts are deferred than the item holds', async () => {
    const store = await freshStore();
    const publisher = new MemoryMessagePublisher();
    // Saturday 11:00 IST: finance (Mon-Fri 09:00-18:00) is out of office.
    const saturday = Date.parse('2026-11-28T11:00:00+05:30');
    const step = (from: number, nowMs: number) =>
      notifierStep({
        config: OFFICE,
        store,
        publisher,
        now: () => nowMs,
        events: distinctAlerts(from, 6_000, nowMs),
      });
    // A source's cap of alerts, twice: 12,000 distinct alerts are about 400 KB compressed.
    expect((await step(0, saturday)).released).toBe(false);
    const second = await step(6_000, saturday + MINUTE);
    expect(second.released).toBe(true);
    expect(new Set(publisher.published.map((m) => m.kind))).toEqual(new Set(['digest']));
    expect(publisher.published.reduce((sum, m) => sum + m.alerts.length, 0)).toBe(12_000);
    const stored = await store.loadNotifier();
    expect(stored.state?.channels.finance).toBeUndefined();
    expect(stored.owed).toEqual([]);
  }, 120_000);
});

describe('Class: SnsMessagePublisher (on moto)', () => {
  it('publishes the message JSON, and keeps a message without SMS from SMS subscriptions', async () => {
    const publisher = new SnsMessagePublisher({ client: sns, topics: stack.topics });
    const paged = sampleMessage('a1');
    const emailOnly: Message = { ...sampleMessage('a2'), sms: null };
    const info: Message = {
      ...sampleMessage('a3'),
      alerts: [
        { ...(sampleMessage('a3').alerts[0] as Message['alerts'][number]), severity: 'info' },
      ],
    };
    const { delivered } = await publisher.publish([paged, emailOnly, info]);
    expect(delivered).toEqual(['a1', 'a2', 'a3']);
    expect((await stack.drain('oncall')).map((body) => body.id)).toEqual(['a1', 'a2', 'a3']);
    // The SMS stand-in (an SQS queue: it sees the default body) gets only the message that
    // has an SMS body and is at or above the channel's minSeverity.
    expect((await smsBodies()).map((body) => (JSON.parse(body) as Message).id)).toEqual(['a1']);
  });
});

describe('Function: notifierStep (DynamoDB and SNS on moto)', () => {
  it('publishes what an earlier step committed but did not publish, with the same id, once', async () => {
    const store = await freshStore();
    const cfg = config([]);
    const event = {
      id: 'ringing{call_id=c1}|firing|x',
      at: new Date(T0).toISOString(),
      source: 'live_calls' as const,
      rule: 'ringing',
      status: 'firing' as const,
      severity: 'warning' as const,
      channels: ['oncall'],
      key: 'ringing{call_id=c1}',
      labels: { call_id: 'c1' },
      sms: 'FIRING ringing: call c1',
      subject: '[WARNING] FIRING ringing: call c1',
      text: 'story',
    };
    const down = { publish: async () => Promise.reject(new Error('SNS unreachable')) };
    const crashed = await notifierStep({
      config: cfg,
      store,
      publisher: down,
      now: () => T0,
      events: [event],
    });
    expect(crashed.unpublished).toHaveLength(1);
    const publisher = new SnsMessagePublisher({ client: sns, topics: stack.topics });
    const later = () => T0 + 5 * 60_000;
    await notifierStep({ config: cfg, store, publisher, now: later, events: [event] });
    await notifierStep({ config: cfg, store, publisher, now: later });
    const bodies = await stack.drain('oncall');
    expect(bodies.map((body) => body.id)).toEqual(crashed.unpublished);
    expect((await store.loadNotifier()).owed).toEqual([]);
  });
});
