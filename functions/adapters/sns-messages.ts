import { type MessageAttributeValue, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { SmsPublishing } from '../../shared/messages/sms-attributes';
import { highestSeverity, snsBodies } from '../../shared/notifier/bodies';
import { type ChatOptions, chatBody } from '../../shared/notifier/chat';
import type { Message } from '../../shared/notifier/types';
import type { MessagePublisher, PublishResult } from '../../shared/ports/notifier';

/** Message attributes filter policies see (infra/topics.ts). */
export const MESSAGE_ATTRIBUTES = {
  /** The highest severity the message tells: `minSeverity` filters on it. */
  severity: 'severity',
  kind: 'kind',
  /**
   * `yes` when the message has an SMS body. SMS subscriptions require it: with
   * `MessageStructure: json` an SMS subscriber of a message without an `sms` body would get the
   * `default` body (the message JSON) as a text.
   */
  sms: 'sms',
  /**
   * A rotation's channel (contract section 8): the person the message reaches. Each member's
   * subscriptions filter on their own name, so a handoff changes no subscription.
   */
  oncall: 'oncall',
  /**
   * An ack's confirmation (contract 6.1 rule 7): the caller's number. Every SMS subscription
   * admits a message with `to` only when it is its own number, whatever `minSeverity`.
   */
  to: 'to',
} as const;

export interface SnsMessagePublisherOptions {
  readonly client: SNSClient;
  /** Channel name -> topic ARN (`TELEALERT_TOPICS`). */
  readonly topics: Readonly<Record<string, string>>;
  /** Attempts per message, the first included. @default 3 */
  readonly attempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told about every message that could not be published, for logs and metrics. */
  readonly onFailure?: (failure: { messageId: string; channel: string; reason: string }) => void;
  /**
   * The SMS attributes (`AWS.SNS.SMS.*`, `AWS.MM.SMS.*`) a message with an SMS body carries to
   * a channel with SMS subscribers (`smsPublishing` of the rules file). @default none
   */
  readonly sms?: SmsPublishing;
  /**
   * Channels with Slack or Teams (`chatChannels` of the rules file): their publishes carry the
   * chat body as the `https`/`http` body. @default none
   */
  readonly chat?: ChatOptions & { readonly channels: ReadonlySet<string> };
}

/** The attributes of one message's publish. */
export function messageAttributes(message: Message): Record<string, MessageAttributeValue> {
  const text = (value: string): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: value,
  });
  return {
    [MESSAGE_ATTRIBUTES.severity]: text(highestSeverity(message)),
    [MESSAGE_ATTRIBUTES.kind]: text(message.kind),
    [MESSAGE_ATTRIBUTES.sms]: text(message.sms === null ? 'no' : 'yes'),
    ...(message.oncall === undefined ? {} : { [MESSAGE_ATTRIBUTES.oncall]: text(message.oncall) }),
    ...(message.to === undefined ? {} : { [MESSAGE_ATTRIBUTES.to]: text(message.to) }),
  };
}

/**
 * The deployed `MessagePublisher`: one SNS publish per message to its channel's topic,
 * `MessageStructure: json` with the per-protocol bodies (`default`/SQS: the message JSON,
 * `email`: the text, `sms`: the SMS when there is one, `https`/`http`: the chat body to a
 * channel with chat), the subject, and the attributes
 * filter policies match on. A failed publish is retried a bounded number of times; what still
 * fails stays owed (the next step publishes it, with the same id). A message to a channel
 * with no topic (`TELEALERT_TOPICS` lacks it: a deploy removed or renamed the channel while
 * the message was owed) is `undeliverable`, not tried.
 */
export class SnsMessagePublisher implements MessagePublisher {
  readonly #options: SnsMessagePublisherOptions;

  constructor(options: SnsMessagePublisherOptions) {
    this.#options = options;
  }

  async publish(messages: readonly Message[]): Promise<PublishResult> {
    const delivered: string[] = [];
    const undeliverable: string[] = [];
    for (const message of messages) {
      // No topic: a deploy removed or renamed its channel. No retry can deliver it.
      const topicArn = this.#options.topics[message.channel];
      if (topicArn === undefined) undeliverable.push(message.id);
      else if (await this.#publishOne(message, topicArn)) delivered.push(message.id);
    }
    return undeliverable.length > 0 ? { delivered, undeliverable } : { delivered };
  }

  async #publishOne(message: Message, topicArn: string): Promise<boolean> {
    const fail = (reason: string) => {
      this.#options.onFailure?.({ messageId: message.id, channel: message.channel, reason });
      return false;
    };
    const { sms, chat } = this.#options;
    const chatJson = chat?.channels.has(message.channel)
      ? JSON.stringify(chatBody(message, chat))
      : undefined;
    const attempts = this.#options.attempts ?? 3;
    const sleep = this.#options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    let reason = '';
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        await this.#options.client.send(
          new PublishCommand({
            TopicArn: topicArn,
            MessageStructure: 'json',
            Message: JSON.stringify(snsBodies(message, chatJson)),
            Subject: message.subject,
            MessageAttributes: {
              ...messageAttributes(message),
              ...(message.sms !== null && sms?.channels.has(message.channel) ? sms.attributes : {}),
            },
          }),
        );
        return true;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        if (attempt < attempts) await sleep(200 * 2 ** (attempt - 1));
      }
    }
    return fail(reason);
  }
}
