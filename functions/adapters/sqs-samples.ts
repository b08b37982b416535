import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SampleQueue } from '../../shared/ports/types';
import { delaySeconds } from '../../shared/runner/samples';
import type { QueuedSample } from '../../shared/runner/types';
import * as z from '../../shared/schema/zod';
import { SampleMessageError } from '../errors';

/** `SendMessageBatch` takes at most this many entries. */
const BATCH_SIZE = 10;

/** The body of a queued sample's message: what a later invocation reads back. */
export interface SampleMessage {
  readonly source: QueuedSample['source'];
  readonly sample: number;
  /** ISO 8601, UTC. */
  readonly dueAt: string;
}

/** A queued sample as its message body. */
export function sampleMessageBody(sample: QueuedSample): string {
  const message: SampleMessage = {
    source: sample.source,
    sample: sample.sample,
    dueAt: new Date(sample.dueAtMs).toISOString(),
  };
  return JSON.stringify(message);
}

const sampleMessageSchema = z.object({
  source: z.enum(['live_calls', 'payments']),
  sample: z.number().check(z.int(), z.gte(0)),
  dueAt: z.iso.datetime({ offset: true }),
});

/**
 * A message body back as the sample it carries.
 *
 * @throws SampleMessageError when the body is not a sample message.
 */
export function readSampleMessage(body: string): QueuedSample {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (error) {
    throw new SampleMessageError('not JSON', { cause: error });
  }
  const parsed = sampleMessageSchema.safeParse(data);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new SampleMessageError(
      issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unreadable',
      { cause: parsed.error },
    );
  }
  const { source, sample, dueAt } = parsed.data;
  return { source, sample, dueAtMs: Date.parse(dueAt) };
}

export interface SqsSampleQueueOptions {
  readonly client: SQSClient;
  /** `TELEALERT_SAMPLE_QUEUE_URL`. */
  readonly queueUrl: string;
}

/**
 * The deployed `SampleQueue`: one SQS message per sample, delayed (`DelaySeconds`) until its
 * slot, ten to a `SendMessageBatch`; the queue invokes the same function with it. Entries SQS
 * refused come back for the caller to take itself.
 */
export class SqsSampleQueue implements SampleQueue {
  readonly #options: SqsSampleQueueOptions;

  constructor(options: SqsSampleQueueOptions) {
    this.#options = options;
  }

  async enqueue(samples: readonly QueuedSample[], nowMs: number): Promise<readonly QueuedSample[]> {
    const batches: QueuedSample[][] = [];
    for (let start = 0; start < samples.length; start += BATCH_SIZE) {
      batches.push(samples.slice(start, start + BATCH_SIZE));
    }
    const results = await Promise.allSettled(batches.map((batch) => this.#send(batch, nowMs)));
    const failed = results.flatMap((result, index) =>
      result.status === 'fulfilled' ? result.value : (batches[index] ?? []),
    );
    const rejected = results.find((result) => result.status === 'rejected');
    if (rejected !== undefined && failed.length === samples.length) throw rejected.reason;
    return failed;
  }

  async #send(batch: readonly QueuedSample[], nowMs: number): Promise<QueuedSample[]> {
    const output = await this.#options.client.send(
      new SendMessageBatchCommand({
        QueueUrl: this.#options.queueUrl,
        Entries: batch.map((sample) => ({
          Id: `sample-${sample.sample}`,
          MessageBody: sampleMessageBody(sample),
          DelaySeconds: delaySeconds(sample, nowMs),
        })),
      }),
    );
    const refused = new Set((output.Failed ?? []).map((entry) => entry.Id));
    return batch.filter((sample) => refused.has(`sample-${sample.sample}`));
  }
}
