import {
  type MessageAttributeValue,
  PublishBatchCommand,
  type PublishBatchCommandOutput,
  type PublishBatchRequestEntry,
  type SNSClient,
} from '@aws-sdk/client-sns';
import { notificationJson } from '../../shared/engine/json';
import type { Notification } from '../../shared/engine/types';
import type { PartialDelivery, Publisher, PublishOutcome } from '../../shared/ports/types';

/** `PublishBatch` takes at most this many entries. */
const BATCH_SIZE = 10;
const SUBJECT_MAX = 99;

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
}

export interface PublishFailure {
  readonly notificationId: string;
  readonly channel: string;
  readonly reason: string;
}

interface Entry {
  readonly notification: Notification;
  readonly channel: string;
  readonly topicArn: string;
}

/**
 * The deployed `Publisher`: one SNS publish per notification and channel (a notification for
 * two channels goes to two topics), batched by 10 per topic, `MessageStructure: json` with
 * per-protocol bodies and the attributes filter policies match on. Delivery is told per
 * channel: a notification every channel took is delivered, one that only some took is partial
 * (owed to the others only). Entries SNS failed on its side are retried alone, with backoff, a
 * bounded number of times.
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
    for (const notification of notifications) {
      for (const channel of notification.channels) {
        const topicArn = this.#options.topics[channel];
        if (topicArn === undefined) {
          fail({
            notificationId: notification.id,
            channel,
            reason: `no topic for channel ${channel} in TELEALERT_TOPICS`,
          });
        } else {
          pending.push({ notification, channel, topicArn });
        }
      }
    }
    const byTopic = Map.groupBy(pending, (entry) => entry.topicArn);
    for (const [topicArn, entries] of byTopic) {
      for (let start = 0; start < entries.length; start += BATCH_SIZE) {
        for (const lost of await this.#publishBatch(
          topicArn,
          entries.slice(start, start + BATCH_SIZE),
        )) {
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
            PublishBatchRequestEntries: remaining.map(({ entry, id }) => toBatchEntry(id, entry)),
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

function toBatchEntry(id: string, { notification: n }: Entry): PublishBatchRequestEntry {
  const json = notificationJson(n);
  const attribute = (value: string): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: value,
  });
  return {
    Id: id,
    MessageStructure: 'json',
    Message: JSON.stringify({ default: json, sms: n.sms, email: n.text, sqs: json }),
    Subject: snsSubject(n.subject),
    MessageAttributes: {
      rule: attribute(n.rule),
      severity: attribute(n.severity),
      status: attribute(n.status),
      source: attribute(n.source),
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
