import type { QueuedSample } from '../../shared/runner/types';
import * as z from '../../shared/schema/zod';
import { SampleMessageError } from '../errors';

/*
 * A queued sample's message body, written by the live calls poller's sample queue and read
 * back by the invocation it starts. No SQS client here: `functions/samples.ts` reads messages
 * in both pollers, and only the live calls bundle carries the client (`sqs-samples.ts`).
 */

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
