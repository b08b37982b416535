import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent } from 'aws-lambda';
import type { QueuedSample, SampleQueue } from '../shared/ports/types';
import { judgeQueuedSample, laterSamples } from '../shared/runner/samples';
import type { Config, SourceName } from '../shared/types/config';
import { readSampleMessage } from './adapters/sample-message';

/** An event of the sample queue (an SQS event source mapping), told apart from a schedule's. */
export function isSampleQueueEvent(event: unknown): event is SQSEvent {
  const records = (event as Partial<SQSEvent> | null)?.Records;
  return Array.isArray(records) && records.every((r) => r?.eventSource === 'aws:sqs');
}

interface SampleContext {
  readonly config: Config;
  readonly source: SourceName;
  readonly logger: Logger;
}

/**
 * A scheduled run's samples: it takes the first now and queues the others to come back at
 * their slots, each its own short invocation; what could not be queued it takes itself, as a
 * run without a queue does (waiting for their slots). `undefined`: every sample in this run.
 */
export async function queueLaterSamples(
  queue: SampleQueue | undefined,
  context: SampleContext,
  startMs: number,
): Promise<readonly number[] | undefined> {
  const later = laterSamples(context.config, context.source, startMs);
  if (queue === undefined || later.length === 0) return undefined;
  let notQueued: readonly QueuedSample[];
  try {
    notQueued = await queue.enqueue(later, startMs);
  } catch (error) {
    notQueued = later;
    context.logger.warn('sample queue unreachable: this run takes every sample itself', {
      error,
    });
  }
  const queued = later.length - notQueued.length;
  // The "Live calls samples" graph sums these fields (a line a minute; no metric is billed).
  context.logger.info('samples queued', { queued, notQueued: notQueued.length });
  if (notQueued.length > 0) {
    if (queued > 0) {
      context.logger.warn('some samples could not be queued: this run takes them itself', {
        samples: notQueued.map((s) => s.sample),
      });
    }
  }
  return [0, ...notQueued.map((s) => s.sample)];
}

/**
 * The sample a sample-queue event asks for: the latest one still worth taking (a batch of
 * several means deliveries bunched up; only the newest is a look at now). Others are dropped
 * with a log line (`dropped: 1`, which the dashboard sums); an unreadable message too (it is not retried:
 * it would fail the same way). Empty when nothing is to be taken.
 */
export function takeQueuedSample(
  event: SQSEvent,
  context: SampleContext,
  nowMs: number,
): readonly number[] {
  const drop = (reason: string, details: Record<string, unknown> = {}) => {
    context.logger.warn('queued sample dropped', { reason, dropped: 1, ...details });
  };
  const wanted: QueuedSample[] = [];
  for (const record of event.Records) {
    let sample: QueuedSample;
    try {
      sample = readSampleMessage(record.body);
    } catch (error) {
      drop(error instanceof Error ? error.message : String(error), {
        messageId: record.messageId,
      });
      continue;
    }
    const verdict =
      sample.source === context.source
        ? judgeQueuedSample(context.config, sample, nowMs)
        : {
            take: false as const,
            reason: `a ${sample.source} sample sent to the ${context.source} poller`,
          };
    if (verdict.take) wanted.push(sample);
    else drop(verdict.reason, { messageId: record.messageId });
  }
  wanted.sort((a, b) => a.dueAtMs - b.dueAtMs);
  const newest = wanted.pop();
  for (const superseded of wanted)
    drop(`superseded by sample ${newest?.sample}`, { sample: superseded.sample });
  return newest === undefined ? [] : [newest.sample];
}
