import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { QueuedSample, SampleQueue } from '../../shared/ports/types';
import { delaySeconds } from '../../shared/runner/samples';
import { clientOptions } from './clients';
import { sampleMessageBody } from './sample-message';

/** `SendMessageBatch` takes at most this many entries. */
const BATCH_SIZE = 10;

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

/** The sample queue's client: two attempts of at most a second each. */
const SAMPLE_QUEUE_LIMITS = {
  maxAttempts: 2,
  requestTimeoutMs: 1000,
  connectionTimeoutMs: 500,
} as const;

/** A function's sample queue at `queueUrl` and its SQS client. */
export interface SampleQueueWiring {
  readonly url: string;
  readonly sqs: SQSClient;
  readonly queue: SampleQueue;
}

/**
 * The live calls poller's sample queue: its own SQS client (queueing waits in front of the
 * first sample: fail fast, and let the run take the samples itself rather than eat into their
 * slots). The live calls entry hands this to `createPollerHandler`, so the payments bundle,
 * which never queues a sample, carries no SQS client.
 */
export function sqsSampleQueue(queueUrl: string): SampleQueueWiring {
  const sqs = new SQSClient(clientOptions(SAMPLE_QUEUE_LIMITS));
  return { url: queueUrl, sqs, queue: new SqsSampleQueue({ client: sqs, queueUrl }) };
}
