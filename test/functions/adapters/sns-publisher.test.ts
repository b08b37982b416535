import {
  PublishBatchCommand,
  type PublishBatchCommandInput,
  SNSClient,
  ThrottledException,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SnsPublisher, snsSubject } from '../../../functions/adapters/sns-publisher';
import type { Notification } from '../../../shared/engine/types';
import { MemoryStateStore } from '../../../shared/ports/memory';
import { RecordBatch } from '../../../shared/records/batch';
import { runSource } from '../../../shared/runner/run';
import type { RunOptions } from '../../../shared/runner/types';
import { call, config, MINUTE, T0 } from '../../engine/fixtures';
import { sampleNotification } from '../../ports/fixtures';

const sns = mockClient(SNSClient);
afterEach(() => sns.reset());

const TOPICS = {
  oncall: 'arn:aws:sns:us-east-1:1:oncall',
  finance: 'arn:aws:sns:us-east-1:1:finance',
};
const noSleep = async () => {};

function publisher(onFailure?: (f: unknown) => void) {
  return new SnsPublisher({
    client: new SNSClient({ region: 'us-east-1' }),
    topics: TOPICS,
    sleep: noSleep,
    ...(onFailure ? { onFailure } : {}),
  });
}

function many(count: number) {
  return Array.from({ length: count }, (_, i) =>
    sampleNotification({ key: `r{id=${i}}`, at: `2026-11-21T04:31:00.000Z` }),
  );
}

const NONE = { delivered: [], partial: [] };

function allDelivered(notifications: readonly Notification[]) {
  return { delivered: notifications.map((n) => n.id), partial: [] };
}

function inputs(): PublishBatchCommandInput[] {
  return sns.commandCalls(PublishBatchCommand).map((c) => c.args[0].input);
}

describe('Class: SnsPublisher', () => {
  it('publishes in batches of 10 with per-protocol bodies, subject and filter attributes', async () => {
    sns.on(PublishBatchCommand).resolves({ Successful: [], Failed: [] });
    const notifications = many(12);
    expect(await publisher().publish(notifications)).toEqual(allDelivered(notifications));
    expect(inputs().map((i) => i.PublishBatchRequestEntries?.length)).toEqual([10, 2]);
    const entry = inputs()[0]?.PublishBatchRequestEntries?.[0];
    const n = notifications[0];
    expect(entry?.MessageStructure).toBe('json');
    const body = JSON.parse(entry?.Message ?? '{}');
    expect(body.sms).toBe(n?.sms);
    expect(body.email).toBe(n?.text);
    expect(JSON.parse(body.default)).toMatchObject({ rule: n?.rule, key: n?.key, id: n?.id });
    expect(body.sqs).toBe(body.default);
    expect(entry?.Subject).toBe(n?.subject);
    expect(entry?.MessageAttributes).toEqual({
      rule: { DataType: 'String', StringValue: 'too-many-ringing' },
      severity: { DataType: 'String', StringValue: 'critical' },
      status: { DataType: 'String', StringValue: 'firing' },
      source: { DataType: 'String', StringValue: 'live_calls' },
    });
    expect(entry?.Id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it('sends a notification for two channels to both topics', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    await publisher().publish([sampleNotification({ channels: ['oncall', 'finance'] })]);
    expect(
      inputs()
        .map((i) => i.TopicArn)
        .sort(),
    ).toEqual([TOPICS.finance, TOPICS.oncall]);
  });

  it('reports a notification only one of its topics took as owed to the other channel', async () => {
    sns
      .on(PublishBatchCommand)
      .resolves({ Failed: [] })
      .on(PublishBatchCommand, { TopicArn: TOPICS.finance })
      .resolves({ Failed: [{ Id: 'n0', Code: 'InternalError', SenderFault: false }] });
    const n = sampleNotification({ channels: ['oncall', 'finance'] });
    const failures: unknown[] = [];
    expect(await publisher((f) => failures.push(f)).publish([n])).toEqual({
      delivered: [],
      partial: [{ id: n.id, channels: ['finance'] }],
    });
    expect(failures).toEqual([
      { notificationId: n.id, channel: 'finance', reason: 'InternalError:' },
    ]);
  });

  it('publishes only to the failed topic on the run after a partial delivery', async () => {
    let financeUp = false;
    sns.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
      Failed:
        input.TopicArn === TOPICS.finance && !financeUp
          ? (input.PublishBatchRequestEntries ?? []).map((e) => ({
              Id: e.Id,
              Code: 'InternalError',
              SenderFault: false,
            }))
          : [],
    }));
    let nowMs = T0;
    const run: RunOptions = {
      config: config([
        {
          name: 'too-many-ringing',
          where: { state: 'Ringing' },
          count: '> 1',
          notify: ['oncall', 'finance'],
        },
      ]),
      source: 'live_calls',
      client: {
        request: async () => ({
          records: RecordBatch.of([call('c1'), call('c2')]),
          skipped: 0,
          skipReasons: [],
        }),
      },
      store: new MemoryStateStore(),
      publisher: publisher(),
      now: () => nowMs,
      sleep: async () => {},
      deadlineMs: T0 + MINUTE,
    };
    await runSource(run);
    expect(inputs().map((i) => i.TopicArn)).toEqual([
      TOPICS.oncall,
      ...Array(3).fill(TOPICS.finance),
    ]);

    sns.resetHistory();
    financeUp = true;
    nowMs += 3 * MINUTE;
    expect(await runSource({ ...run, deadlineMs: nowMs + MINUTE })).toMatchObject({
      sent: 1,
      owedLeft: 0,
    });
    expect(inputs().map((i) => i.TopicArn)).toEqual([TOPICS.finance]);
    const body = JSON.parse(inputs()[0]?.PublishBatchRequestEntries?.[0]?.Message ?? '{}');
    expect(JSON.parse(body.default)).toMatchObject({
      rule: 'too-many-ringing',
      channels: ['finance'],
    });
  });

  it('retries only the entries of a partial failure', async () => {
    sns
      .on(PublishBatchCommand)
      .resolvesOnce({
        Failed: [{ Id: 'n1', Code: 'InternalError', SenderFault: false, Message: 'try again' }],
      })
      .resolves({ Failed: [] });
    const notifications = many(3);
    expect(await publisher().publish(notifications)).toEqual(allDelivered(notifications));
    const second = inputs()[1]?.PublishBatchRequestEntries ?? [];
    expect(second.map((e) => JSON.parse(JSON.parse(e.Message ?? '').default).id)).toEqual([
      notifications[1]?.id,
    ]);
  });

  it('leaves out an entry SNS keeps failing, after a bounded number of attempts', async () => {
    sns.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => ({
      Failed: (input.PublishBatchRequestEntries ?? [])
        .filter((e) => e.Id === 'n0')
        .map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
    }));
    const failures: unknown[] = [];
    const notifications = many(2);
    expect(await publisher((f) => failures.push(f)).publish(notifications)).toEqual({
      delivered: [notifications[1]?.id],
      partial: [],
    });
    expect(inputs()).toHaveLength(3);
    expect(failures).toEqual([
      { notificationId: notifications[0]?.id, channel: 'oncall', reason: 'InternalError:' },
    ]);
  });

  it('does not retry an entry SNS rejected as malformed', async () => {
    sns.on(PublishBatchCommand).resolves({
      Failed: [{ Id: 'n0', Code: 'InvalidParameter', SenderFault: true, Message: 'bad' }],
    });
    expect(await publisher().publish(many(1))).toEqual(NONE);
    expect(inputs()).toHaveLength(1);
  });

  it('retries the whole batch while SNS throttles, then reports it undelivered', async () => {
    const throttled = new ThrottledException({ message: 'Rate exceeded', $metadata: {} });
    sns.on(PublishBatchCommand).rejectsOnce(throttled).resolves({ Failed: [] });
    const notifications = many(2);
    expect(await publisher().publish(notifications)).toEqual(allDelivered(notifications));

    sns.reset();
    sns.on(PublishBatchCommand).rejects(throttled);
    const failures: { reason: string }[] = [];
    expect(await publisher((f) => failures.push(f as { reason: string })).publish(many(1))).toEqual(
      NONE,
    );
    expect(inputs()).toHaveLength(3);
    expect(failures[0]?.reason).toBe('ThrottledException: Rate exceeded');
  });

  it('counts a notification for a channel without a topic as undelivered', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    expect(await publisher().publish([sampleNotification({ channels: ['nowhere'] })])).toEqual(
      NONE,
    );
    expect(inputs()).toEqual([]);
  });
});

describe('Function: snsSubject', () => {
  it('keeps a subject SNS accepts as it is', () => {
    expect(snsSubject('CRITICAL: 6 calls ringing')).toBe('CRITICAL: 6 calls ringing');
  });

  it('makes a subject ASCII, one line and under 100 characters', () => {
    const subject = snsSubject(`Zahlung café ₹500\nnext line ${'x'.repeat(200)}`);
    expect(subject).toMatch(/^[\x20-\x7e]{1,99}$/);
    expect(subject.startsWith('Zahlung cafe ?500 next line')).toBe(true);
  });
});
