import type { Severity, SourceName } from '../config/types';
import type { NotificationStatus } from '../engine/types';

export const NOTIFIER_STATE_VERSION = 1;

/** `alerts`: grouped events; `digest`: deferred or capped events, sent later (contract section 6). */
export const MESSAGE_KINDS = ['alerts', 'digest', 'escalation', 'ack'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** One event as a message tells it (`alerts[]` of contract section 6). */
export interface MessageAlert {
  readonly rule: string;
  readonly key: string;
  readonly status: NotificationStatus;
  readonly severity: Severity;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number | null;
  /** The event's own time (the latest, when several events of one alert are told at once). */
  readonly at: string;
  /** When an alert that fired and resolved while held is told once: its firing time. */
  readonly firedAt?: string;
}

/** One message to one channel (contract section 6): the SNS `default` body, `replay --messages`. */
export interface Message {
  /** When it goes out, ISO-8601 UTC. */
  readonly at: string;
  readonly channel: string;
  readonly kind: MessageKind;
  readonly alerts: readonly MessageAlert[];
  /** One segment; null when the message goes by email only. */
  readonly sms: string | null;
  readonly subject: string;
  readonly text: string;
  /** Deterministic: a message decided again (after a crash) carries the same id. */
  readonly id: string;
}

/** A message and what it delivers, for the caller's bookkeeping (not part of the JSON). */
export interface Outbound {
  readonly message: Message;
  /**
   * Ids of the events this message is the first to tell its channel (an SMS-cap digest, which
   * recaps events already emailed, delivers none).
   */
  readonly delivers: readonly string[];
  /** The SMS was held by the cap (the email still goes). */
  readonly smsHeld: boolean;
}

/**
 * An event the notifier keeps while it waits (held by a group, deferred by active hours, or
 * its SMS held by the cap): what a message needs to tell it, without the engine's state.
 */
export interface HeldEvent {
  readonly id: string;
  readonly at: number;
  readonly source: SourceName;
  readonly rule: string;
  readonly key: string;
  readonly status: NotificationStatus;
  readonly severity: Severity;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number | null;
  readonly sms: string;
  readonly subject: string;
  /** The event's full email text; dropped once a message is too large to show it whole. */
  readonly text?: string;
}

/** One aggregation group of a channel (Alertmanager's `aggrGroup`). */
export interface GroupState {
  /** The `group.by` values, in the configured order. */
  readonly labels: Readonly<Record<string, string>>;
  /** When the group last sent a message; the next waits until this plus `interval`. */
  readonly lastSentAt?: number;
  /** When the held events are due; undefined when nothing is held. */
  readonly dueAt?: number;
  /** Events held for the next message, in arrival order. */
  readonly held: readonly HeldEvent[];
  /** The held events started a new group (the cap never holds a critical one's SMS). */
  readonly opensGroup: boolean;
}

export interface ChannelState {
  /** By group key. */
  readonly groups: Readonly<Record<string, GroupState>>;
  /** Send times of the SMS of the last rolling hour (epoch ms, ascending). */
  readonly smsSentAt: readonly number[];
  /** Events emailed whose SMS the cap held: told again by one digest SMS when the hour allows. */
  readonly smsHeld: readonly HeldEvent[];
  /** Events deferred by active hours: one digest at the next window start. */
  readonly deferred: readonly HeldEvent[];
}

/**
 * Everything the notifier remembers between runs: plain, serialisable data, one item
 * deployed. Silences, acknowledgements and escalation timers (issue 16) become siblings of
 * `channels`.
 */
export interface NotifierState {
  readonly version: typeof NOTIFIER_STATE_VERSION;
  readonly channels: Readonly<Record<string, ChannelState>>;
}

/** What one step decided. */
export interface Decision {
  readonly state: NotifierState;
  /** In the order they should go out. */
  readonly messages: readonly Outbound[];
  /** When the notifier next has work with no new event (a held group, a digest); epoch ms. */
  readonly nextDueAtMs: number | undefined;
}
