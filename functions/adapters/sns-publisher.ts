import {
  type MessageAttributeValue,
  PublishBatchCommand,
  type PublishBatchCommandOutput,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import { notificationJson } from '../../shared/engine/json';
import type { Notification } from '../../shared/engine/types';
import type { SmsAttribute } from '../../shared/messages/sms-attributes';
import type { PartialDelivery, Publisher, PublishOutcome } from '../../shared/ports/types';

/** `PublishBatch` takes at most this many entries. */
const BATCH_SIZE = 10;
const SUBJECT_MAX = 99;
/**
 * SNS takes a message of at most 256 KiB, and a `PublishBatch` request of at most 256 KiB for
 * all its entries together (`BatchRequestTooLong` otherwise), counting the UTF-8 bytes of the
 * body and of the attributes' names, types and values.
 */
const SNS_MAX_BYTES = 256 * 1024;
/** Kept free under that cap for what `messageBytes` leaves out (entry ids, the structure flag). */
const MARGIN_BYTES = 2 * 1024;
/** The most one message, or one batch, may weigh by `messageBytes`. */
const MAX_BYTES = SNS_MAX_BYTES - MARGIN_BYTES;

export interface SnsPublisherOptions {
  readonly client: SNSClient;
  /** Channel name -> topic ARN (`TELEALERT_TOPICS`). */
  readonly topics: Readonly<Record<string, string>>;
  /** Attempts per entry, the first included, for entries SNS failed on its side. @default 3 */
  readonly attempts?: number;
  /** Backoff before retry `n` (1-based). @default 200ms * 2^(n-1) */
  readonly backoffMs?: (retry: number) => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told about every entry that could not be delivered, for logs and metrics. */
  readonly onFailure?: (failure: PublishFailure) => void;
  /**
   * Channels with SMS subscribers and the SMS attributes their publishes carry (`smsAttributes`
   * of the rules file's `sms` block). Other channels' publishes go without them: an SQS
   * subscriber with raw delivery would get them as message attributes, which SQS caps at 10.
   * @default no channel
   */
  readonly sms?: {
    readonly channels: ReadonlySet<string>;
    readonly attributes: Readonly<Record<string, SmsAttribute>>;
  };
}

export interface PublishFailure {
  readonly notificationId: string;
  readonly channel: string;
  readonly reason: string;
}

/** A batch entry without its `Id`, which is its place in the batch. */
type Message = Omit<PublishBatchRequestEntry, 'Id'>;

interface Entry {
  readonly notification: Notification;
  readonly channel: string;
  readonly topicArn: string;
  readonly message: Message;
  readonly bytes: number;
}

/**
 * The deployed `Publisher`: one SNS publish per notification and channel (a notification for
 * two channels goes to two topics), batched by 10 per topic, `MessageStructure: json` with
 * per-protocol bodies and the attributes filter policies match on. A batch is cut early rather
 * than pass the 256 KiB a request may carry, and a message over that limit has its text
 * shortened. Delivery is told per channel: a notification every channel took is delivered, one
 * that only some took is partial (owed to the others only). Entries SNS failed on its side are
 * retried alone, with backoff, a bounded number of times.
 */
export class SnsPublisher implements Publisher {
  readonly #options: SnsPublisherOptions;

  constructor(options: SnsPublisherOptions) {
    this.#options = options;
  }

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    // Per notification id, the channels that did not take it.
    const failed = new Map<string, Set<string>>();
    const fail = (failure: PublishFailure) => {
      const channels = failed.get(failure.notificationId) ?? new Set<string>();
      failed.set(failure.notificationId, channels.add(failure.channel));
      this.#options.onFailure?.(failure);
    };
    const pending: Entry[] = [];
    const sms = this.#options.sms;
    for (const notification of notifications) {
      const plain = lazyMessage(notification, {});
      const withSms = lazyMessage(notification, sms?.attributes ?? {});
      for (const channel of notification.channels) {
        const { message, bytes } = sms?.channels.has(channel) ? withSms() : plain();
        const topicArn = this.#options.topics[channel];
        if (topicArn === undefined) {
          fail({
            notificationId: notification.id,
            channel,
            reason: `no topic for channel ${channel} in TELEALERT_TOPICS`,
          });
        } else if (message === undefined) {
          // SNS would reject it on every run, and its size would sink the whole batch with it.
          fail({
            notificationId: notification.id,
            channel,
            reason: `over ${SNS_MAX_BYTES} bytes for SNS even with no text (long key or labels)`,
          });
        } else {
          pending.push({ notification, channel, topicArn, message, bytes });
        }
      }
    }
    const byTopic = Map.groupBy(pending, (entry) => entry.topicArn);
    for (const [topicArn, entries] of byTopic) {
      for (const batch of batches(entries)) {
        for (const lost of await this.#publishBatch(topicArn, batch)) {
          fail({
            notificationId: lost.entry.notification.id,
            channel: lost.entry.channel,
            reason: lost.reason,
          });
        }
      }
    }
    const delivered: string[] = [];
    const partial: PartialDelivery[] = [];
    for (const { id, channels } of notifications) {
      const missed = failed.get(id);
      if (missed === undefined) delivered.push(id);
      else if (channels.some((c) => !missed.has(c))) {
        partial.push({ id, channels: channels.filter((c) => missed.has(c)) });
      }
    }
    return { delivered, partial };
  }

  /** Publishes one batch, retrying what failed; resolves with the entries finally lost. */
  async #publishBatch(
    topicArn: string,
    entries: readonly Entry[],
  ): Promise<{ entry: Entry; reason: string }[]> {
    const attempts = this.#options.attempts ?? 3;
    const sleep = this.#options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    const backoff = this.#options.backoffMs ?? ((retry) => 200 * 2 ** (retry - 1));
    let remaining = entries.map((entry, index) => ({ entry, id: `n${index}`, reason: '' }));
    const lost: { entry: Entry; reason: string }[] = [];
    for (let attempt = 1; attempt <= attempts && remaining.length > 0; attempt += 1) {
      if (attempt > 1) await sleep(backoff(attempt - 1));
      let response: PublishBatchCommandOutput;
      try {
        response = await this.#options.client.send(
          new PublishBatchCommand({
            TopicArn: topicArn,
            PublishBatchRequestEntries: remaining.map(({ entry, id }) => ({
              Id: id,
              ...entry.message,
            })),
          }),
        );
      } catch (error) {
        // Throttling or a network fault after the SDK's own retries: the whole batch again.
        for (const item of remaining) item.reason = errorReason(error);
        continue;
      }
      const failures = new Map((response.Failed ?? []).map((f) => [f.Id, f]));
      const retry: typeof remaining = [];
      for (const item of remaining) {
        const failure = failures.get(item.id);
        if (failure === undefined) continue;
        item.reason = `${failure.Code ?? 'Failed'}: ${failure.Message ?? ''}`.trim();
        // A sender fault (a malformed entry) fails the same way every time.
        if (failure.SenderFault) lost.push(item);
        else retry.push(item);
      }
      remaining = retry;
    }
    return [...lost, ...remaining];
  }
}

/** Cuts a topic's entries, in order, into requests of at most 10 entries and `MAX_BYTES`. */
function batches(entries: readonly Entry[]): Entry[][] {
  const cut: Entry[][] = [];
  let batch: Entry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (batch.length === BATCH_SIZE || bytes + entry.bytes > MAX_BYTES) {
      if (batch.length > 0) cut.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(entry);
    bytes += entry.bytes;
  }
  if (batch.length > 0) cut.push(batch);
  return cut;
}

/** The fitted message and its size, made on first use (most notifications need one kind). */
function lazyMessage(
  notification: Notification,
  extra: Readonly<Record<string, MessageAttributeValue>>,
): () => { message: Message | undefined; bytes: number } {
  let made: { message: Message | undefined; bytes: number } | undefined;
  return () => {
    if (made === undefined) {
      const message = fittedMessage(notification, extra);
      made = { message, bytes: message === undefined ? 0 : messageBytes(message) };
    }
    return made;
  };
}

/**
 * The message for a notification, its `text` shortened when the whole would be over the SNS
 * limit: cut on a code-point boundary and ended with a line saying so, everything else kept.
 * Undefined when even an empty text would not fit.
 */
function fittedMessage(
  notification: Notification,
  extra: Readonly<Record<string, MessageAttributeValue>>,
): Message | undefined {
  const whole = toMessage(notification, extra);
  if (messageBytes(whole) <= MAX_BYTES) return whole;
  const chars = Array.from(notification.text);
  const note = (kept: number) =>
    `\n\n[shortened to fit an SNS message: ${kept} of ${chars.length} characters]`;
  const shortened = (kept: number) =>
    toMessage({ ...notification, text: chars.slice(0, kept).join('') + note(kept) }, extra);
  const fits = (kept: number) => messageBytes(shortened(kept)) <= MAX_BYTES;
  if (!fits(0)) return undefined;
  // The text is in the body three times and escaped once or twice, so bytes per character vary:
  // search for the longest prefix that fits. More characters than bytes allowed never fit.
  let fitting = 0;
  let tooMany = Math.min(chars.length, MAX_BYTES);
  while (tooMany - fitting > 1) {
    const middle = Math.floor((fitting + tooMany) / 2);
    if (fits(middle)) fitting = middle;
    else tooMany = middle;
  }
  return shortened(fitting);
}

/**
 * The size SNS counts a message at: the UTF-8 bytes of its body and subject, and of its
 * attributes' names, types and values.
 */
function messageBytes(message: Message): number {
  const utf8 = (text = '') => Buffer.byteLength(text, 'utf8');
  let bytes = utf8(message.Message) + utf8(message.Subject);
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    bytes += utf8(name) + utf8(value.DataType) + utf8(value.StringValue);
  }
  return bytes;
}

function toMessage(
  n: Notification,
  extra: Readonly<Record<string, MessageAttributeValue>>,
): Message {
  const json = notificationJson(n);
  const attribute = (value: string): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: value,
  });
  return {
    MessageStructure: 'json',
    Message: JSON.stringify({ default: json, sms: n.sms, email: n.text, sqs: json }),
    Subject: snsSubject(n.subject),
    MessageAttributes: {
      rule: attribute(n.rule),
      severity: attribute(n.severity),
      status: attribute(n.status),
      source: attribute(n.source),
      ...extra,
    },
  };
}

/**
 * SNS rejects a Subject that is not ASCII, has a line break or is 100 characters or longer.
 * The renderer already keeps to that; this makes sure one odd subject cannot block a batch.
 */
export function snsSubject(subject: string): string {
  const ascii = subject
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim();
  const text = ascii === '' ? 'telealert' : ascii;
  return text.length <= SUBJECT_MAX ? text : `${text.slice(0, SUBJECT_MAX - 3)}...`;
}

function errorReason(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
