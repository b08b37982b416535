import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SampleMessageError } from '../../../functions/adapters/errors';
import { readSampleMessage, sampleMessageBody } from '../../../functions/adapters/sample-message';
import { SqsSampleQueue } from '../../../functions/adapters/sqs-samples';
import type { QueuedSample } from '../../../shared/ports/types';

const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/1/samples';
const T0 = Date.parse('2026-11-22T04:00:00.000Z');

function later(count: number, intervalMs = 15_000): QueuedSample[] {
  return Array.from({ length: count }, (_, i) => ({
    source: 'live_calls' as const,
    sample: i + 1,
    dueAtMs: T0 + (i + 1) * intervalMs,
  }));
}

function queue() {
  return new SqsSampleQueue({
    client: new SQSClient({ region: 'us-east-1' }),
    queueUrl: QUEUE_URL,
  });
}

describe('Class: SqsSampleQueue', () => {
  describe('Method: enqueue', () => {
    it('delays each sample until its slot, in one batch', async () => {
      sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
      expect(await queue().enqueue(later(3), T0 + 400)).toEqual([]);
      const [call] = sqs.commandCalls(SendMessageBatchCommand);
      const entries = call?.args[0].input.Entries ?? [];
      expect(entries.map((e) => [e.Id, e.DelaySeconds])).toEqual([
        ['sample-1', 15],
        ['sample-2', 30],
        ['sample-3', 45],
      ]);
      expect(JSON.parse(entries[0]?.MessageBody ?? '')).toEqual({
        source: 'live_calls',
        sample: 1,
        dueAt: '2026-11-22T04:00:15.000Z',
      });
      expect(call?.args[0].input.QueueUrl).toBe(QUEUE_URL);
    });

    it('sends ten samples to a batch', async () => {
      sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
      await queue().enqueue(later(23, 1000), T0);
      expect(
        sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries?.length),
      ).toEqual([10, 10, 3]);
    });

    it('hands back the samples SQS refused', async () => {
      sqs.on(SendMessageBatchCommand).resolves({
        Failed: [{ Id: 'sample-2', SenderFault: false, Code: 'InternalError' }],
      });
      expect((await queue().enqueue(later(3), T0)).map((s) => s.sample)).toEqual([2]);
    });

    it('hands back a whole batch that failed while another went through', async () => {
      sqs
        .on(SendMessageBatchCommand)
        .resolvesOnce({ Failed: [] })
        .rejectsOnce(new Error('connection reset'));
      const notQueued = await queue().enqueue(later(12, 1000), T0);
      expect(notQueued.map((s) => s.sample)).toEqual([11, 12]);
    });

    it('rejects when no batch reached the queue', async () => {
      sqs.on(SendMessageBatchCommand).rejects(new Error('connection refused'));
      await expect(queue().enqueue(later(3), T0)).rejects.toThrow('connection refused');
    });
  });
});

describe('Function: readSampleMessage', () => {
  it('reads back what sampleMessageBody wrote', () => {
    const sample = { source: 'live_calls' as const, sample: 3, dueAtMs: T0 + 45_000 };
    expect(readSampleMessage(sampleMessageBody(sample))).toEqual(sample);
  });

  it('reads a due time written with an offset as the same instant', () => {
    const body = '{"source":"payments","sample":0,"dueAt":"2026-11-22T09:30:15.5+05:30"}';
    expect(readSampleMessage(body)).toEqual({
      source: 'payments',
      sample: 0,
      dueAtMs: Date.parse('2026-11-22T04:00:15.500Z'),
    });
  });

  it.each([
    ['not json', 'not JSON'],
    ['[]', 'body'],
    ['{"source":"calls","sample":1,"dueAt":"2026-11-22T04:00:15Z"}', 'source'],
    ['{"source":"live_calls","sample":1.5,"dueAt":"2026-11-22T04:00:15Z"}', 'sample'],
    ['{"source":"live_calls","sample":-1,"dueAt":"2026-11-22T04:00:15Z"}', 'sample'],
    ['{"source":"live_calls","sample":1,"dueAt":"soon"}', 'dueAt'],
    ['{"source":"live_calls","sample":1,"dueAt":"2026-11-22T04:00:15"}', 'dueAt'],
    ['{"source":"live_calls","sample":1,"dueAt":"2026-02-31T04:00:15Z"}', 'dueAt'],
    ['{"source":"live_calls","sample":1,"dueAt":"2026-11-22T24:00:00Z"}', 'dueAt'],
  ])('refuses %s, naming what is wrong', (body, named) => {
    expect(() => readSampleMessage(body)).toThrow(SampleMessageError);
    expect(() => readSampleMessage(body)).toThrow(named);
  });
});
