import { SEVERITIES, type Severity } from '../types/config';
import { messageJson } from './json';
import type { Message } from './types';

/**
 * SNS takes at most 256 KiB a publish, attributes and subject included. A message's body stays
 * under this, leaving room for the subject (under 100 characters), the attributes and, to a
 * channel with chat, the chat body twice (`http` and `https`, each at most `CHAT_LIMITS.bytes`).
 */
export const MESSAGE_BODY_LIMIT = 230_000;

/** The per-protocol bodies of one publish (`MessageStructure: json`). */
export interface SnsBodies {
  /** What SQS, Lambda, HTTP and email-json subscribers get: the message JSON. */
  readonly default: string;
  readonly email: string;
  /** Absent when the message goes by email only; SMS subscriptions then filter it out. */
  readonly sms?: string;
  /**
   * The chat body (`chat.ts`), to a channel with Slack or Teams: the chat service subscribes
   * over HTTPS; `http` is the same body, what a subscriber on loopback gets in the tests.
   */
  readonly https?: string;
  readonly http?: string;
}

/**
 * The bodies SNS sends each protocol; `JSON.stringify` of this is the published `Message`.
 * `chat`: the chat body's JSON, for a channel with chat.
 */
export function snsBodies(message: Message, chat?: string): SnsBodies {
  return {
    default: messageJson(message),
    email: message.text,
    ...(message.sms === null ? {} : { sms: message.sms }),
    ...(chat === undefined ? {} : { https: chat, http: chat }),
  };
}

/** Bytes of the published `Message` parameter (UTF-8), the size SNS limits. */
export function publishedBytes(message: Message): number {
  return Buffer.byteLength(JSON.stringify(snsBodies(message)), 'utf8');
}

/** The highest severity a message tells: its `severity` attribute, which `minSeverity` filters on. */
export function highestSeverity(message: {
  readonly alerts: readonly { readonly severity: Severity }[];
}): Severity {
  let highest = 0;
  for (const alert of message.alerts) {
    highest = Math.max(highest, SEVERITIES.indexOf(alert.severity));
  }
  return SEVERITIES[highest] ?? 'info';
}
