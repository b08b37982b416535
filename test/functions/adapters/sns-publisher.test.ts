import {
  PublishBatchCommand,
  type PublishBatchCommandInput,
  type PublishBatchRequestEntry,
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

/** SNS limits: one message, and one whole PublishBatch request, at most 256 KiB. */
const SNS_MAX_BYTES = 262_144;

/** What SNS counts against its limits: UTF-8 bytes of body, subject and attributes. */
function entryBytes(entry: PublishBatchRequestEntry): number {
  const attributes = Object.entries(entry.MessageAttributes ?? {}).map(
    ([name, value]) => name + value.DataType + (value.StringValue ?? ''),
  );
  return Buffer.byteLength([entry.Message, entry.Subject, ...attributes].join(''));
}

function ids(input: PublishBatchCommandInput): string[] {
  return (input.PublishBatchRequestEntries ?? []).map(
    (e) => JSON.parse(JSON.parse(e.Message ?? '').default).id,
  );
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

  it('adds the SMS attributes to the publishes of channels with SMS subscribers only', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    const attributes = {
      'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
      'AWS.MM.SMS.EntityId': { DataType: 'String', StringValue: '1101234567890123456' },
    } as const;
    const withSms = new SnsPublisher({
      client: new SNSClient({ region: 'us-east-1' }),
      topics: TOPICS,
      sleep: noSleep,
      sms: { channels: new Set(['oncall']), attributes },
    });
    await withSms.publish([sampleNotification({ channels: ['oncall', 'finance'] })]);
    const byTopic = Object.fromEntries(
      inputs().map((i) => [i.TopicArn, i.PublishBatchRequestEntries?.[0]?.MessageAttributes]),
    );
    expect(byTopic[TOPICS.oncall]).toMatchObject(attributes);
    expect(byTopic[TOPICS.oncall]?.severity).toEqual({
      DataType: 'String',
      StringValue: 'critical',
    });
    expect(Object.keys(byTopic[TOPICS.finance] ?? {}).sort()).toEqual([
      'rule',
      'severity',
      'source',
      'status',
    ]);
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

  it('cuts a batch early rather than pass the 256 KiB a request may carry', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    const notifications = many(10).map((n) => ({ ...n, text: 'x'.repeat(13_000) }));
    expect(await publisher().publish(notifications)).toEqual(allDelivered(notifications));
    const entries = inputs().flatMap((i) => i.PublishBatchRequestEntries ?? []);
    expect(entries.every((e) => entryBytes(e) > 39_000)).toBe(true);
    expect(inputs().length).toBeGreaterThanOrEqual(2);
    for (const input of inputs()) {
      const bytes = (input.PublishBatchRequestEntries ?? []).map(entryBytes);
      expect(bytes.reduce((a, b) => a + b)).toBeLessThan(SNS_MAX_BYTES);
    }
    expect(inputs().flatMap(ids)).toEqual(notifications.map((n) => n.id));
  });

  it('still sends ten ordinary notifications in one request', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    const notifications = many(10).map((n) => ({ ...n, text: 'x'.repeat(4_000) }));
    expect(await publisher().publish(notifications)).toEqual(allDelivered(notifications));
    expect(inputs().map(ids)).toEqual([notifications.map((n) => n.id)]);
  });

  it('shortens the text of a notification over the message limit and delivers it', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    // Quotes and line breaks are escaped twice in the default/sqs bodies; the emoji is two
    // UTF-16 units that must not be cut apart.
    const line = 'amount "₹500" 😀\n';
    const text = line.repeat(20_000);
    const n = sampleNotification({ text });
    expect(await publisher().publish([n])).toEqual(allDelivered([n]));
    const entry = inputs()[0]?.PublishBatchRequestEntries?.[0];
    if (entry === undefined) throw new Error('nothing published');
    expect(entryBytes(entry)).toBeLessThan(SNS_MAX_BYTES);
    expect(entryBytes(entry)).toBeGreaterThan(SNS_MAX_BYTES - 10_000);
    const body = JSON.parse(entry.Message ?? '{}');
    const marker = /\n\n\[shortened to fit an SNS message: (\d+) of (\d+) characters\]$/;
    const [, kept, total] = body.email.match(marker) ?? [];
    expect(Number(total)).toBe(Array.from(text).length);
    expect(Number(kept)).toBeGreaterThan(10_000);
    const shortened: string = body.email.replace(marker, '');
    expect(Array.from(shortened)).toHaveLength(Number(kept));
    expect(shortened.isWellFormed()).toBe(true);
    expect(text.startsWith(shortened)).toBe(true);
    const { text: _, ...rest } = n;
    expect(JSON.parse(body.default)).toEqual({ ...rest, text: body.email });
    expect(body.sqs).toBe(body.default);
    expect(body.sms).toBe(n.sms);
    expect(entry.Subject).toBe(n.subject);
    const attributes = Object.entries(entry.MessageAttributes ?? {});
    expect(Object.fromEntries(attributes.map(([name, v]) => [name, v.StringValue]))).toEqual({
      rule: n.rule,
      severity: n.severity,
      status: n.status,
      source: n.source,
    });
  });

  it('reports a notification too long even without text as failed and sends the rest', async () => {
    sns.on(PublishBatchCommand).resolves({ Failed: [] });
    const [first, second] = many(2);
    const huge = sampleNotification({ key: 'huge', labels: { id: 'x'.repeat(300_000) } });
    if (first === undefined || second === undefined) throw new Error('fixture');
    const failures: { notificationId: string; reason: string }[] = [];
    const outcome = await publisher((f) => failures.push(f as (typeof failures)[number])).publish([
      first,
      huge,
      second,
    ]);
    expect(outcome).toEqual({ delivered: [first.id, second.id], partial: [] });
    expect(inputs().map(ids)).toEqual([[first.id, second.id]]);
    expect(failures).toEqual([
      {
        notificationId: huge.id,
        channel: 'oncall',
        reason: expect.stringMatching(/even with no text/),
      },
    ]);
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
