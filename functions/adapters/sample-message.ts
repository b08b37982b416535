import type { QueuedSample } from '../../shared/ports/types';
import { SampleMessageError } from './errors';

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

const SOURCES: readonly QueuedSample['source'][] = ['live_calls', 'payments'];

/**
 * An ISO 8601 instant with seconds and a zone (`Z` or an offset), as `toISOString` writes it;
 * a fraction of any length. The hour is 00 to 23: Date.parse takes `24:00` for the next
 * midnight, which the zod schema this replaced refused.
 */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The epoch ms of `text` when it is such an instant on a day the calendar has. */
function readInstant(text: string): number | undefined {
  const match = ISO_INSTANT.exec(text);
  if (match === null) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse takes February 31 for March 3: the day must be one of its month.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? ms : undefined;
}

function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * A message body back as the sample it carries.
 *
 * @throws SampleMessageError when the body is not a sample message, naming the first field
 *   that is wrong.
 */
export function readSampleMessage(body: string): QueuedSample {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (error) {
    throw new SampleMessageError('not JSON', { cause: error });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SampleMessageError(`body: expected an object, received ${describeType(data)}`);
  }
  const { source, sample, dueAt } = data as Record<string, unknown>;
  if (!SOURCES.includes(source as QueuedSample['source'])) {
    throw new SampleMessageError(
      `source: expected one of ${SOURCES.map((name) => `"${name}"`).join('|')}`,
    );
  }
  if (typeof sample !== 'number' || !Number.isSafeInteger(sample) || sample < 0) {
    throw new SampleMessageError(
      `sample: expected a whole number >= 0, received ${typeof sample === 'number' ? sample : describeType(sample)}`,
    );
  }
  if (typeof dueAt !== 'string') {
    throw new SampleMessageError(`dueAt: expected a string, received ${describeType(dueAt)}`);
  }
  const dueAtMs = readInstant(dueAt);
  if (dueAtMs === undefined) {
    throw new SampleMessageError(`dueAt: ${JSON.stringify(dueAt)} is not an ISO 8601 instant`);
  }
  return { source: source as QueuedSample['source'], sample, dueAtMs };
}
