import type { NotificationStatus } from '../messages/types';
import type { Severity, SourceName } from '../types/config';

export const STATE_VERSION = 1;

/**
 * One notification (contract section 4). The JSON printed by `replay`, the demo and carried in
 * the SNS `default`/`sqs` bodies. `id` is deterministic, so redelivery can be de-duplicated.
 */
export interface Notification {
  readonly id: string;
  /** Evaluation time, ISO-8601 UTC. */
  readonly at: string;
  readonly source: SourceName;
  readonly rule: string;
  readonly status: NotificationStatus;
  readonly severity: Severity;
  readonly channels: readonly string[];
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The count, for aggregate rules. */
  readonly value?: number;
  /**
   * A resolution's channels its firing did not go to (the rule's `notify` changed while it
   * fired, a channel renamed): the notifier tells them its firing time with it, since they never
   * heard the firing (contract 6.1 rule 3). Not printed. Absent: none.
   */
  readonly newTo?: readonly string[];
  /**
   * When this firing of the alert started, ISO-8601 UTC: a firing's own `at`, a repeat's or
   * resolution's earlier time. Not printed (section 4 has no such field): the notifier tells a
   * repeat from a new firing by it, and a resolution's firing time (contract section 6.1).
   * Absent in events committed before it existed.
   */
  readonly firedAt?: string;
  /**
   * A resolution its rule does not tell (`resolved: false`): not a notification of section 4
   * (replay, `poll` and the demo print none), only the notifier's cue that the firing is over,
   * so a firing it still holds is told once, resolved, with `firedAt` (contract 6.1 rule 3).
   */
  readonly untold?: true;
  readonly sms: string;
  readonly subject: string;
  readonly text: string;
}

/** One alert instance (prometheus' `Alert`): plain, serialisable data. */
export interface AlertInstance {
  readonly rule: string;
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
  /** When the condition first held (epoch ms). */
  readonly activeAt: number;
  readonly firedAt?: number;
  /** Last time a firing notification went out. */
  readonly lastSentAt?: number;
  /** Last evaluation at which the condition held. */
  readonly lastTrueAt: number;
  /**
   * First evaluation at which a firing instance's condition no longer held (prometheus'
   * `KeepFiringSince`): `keepFiring` is measured from it. Absent while the condition holds.
   */
  readonly keepFiringSince?: number;
  /** Last time the record/group was seen (payments are forgotten after the lookback). */
  readonly lastSeenAt: number;
  /** A payment's `created_at` (epoch ms): the lookback forgets instances by it. */
  readonly createdAtMs?: number;
  readonly value?: number;
  /** What the messages need to tell the story (a per-record rule's record fields, etc.). */
  readonly context: Readonly<Record<string, string>>;
}

/** Everything the engine remembers about one source between runs. */
export interface SourceState {
  readonly version: typeof STATE_VERSION;
  readonly source: SourceName;
  readonly consecutiveFailures: number;
  /** Keyed by alert key, e.g. `too-many-ringing{did=+918000000001}`. */
  readonly alerts: Readonly<Record<string, AlertInstance>>;
  /**
   * live_calls: calls to `ack.did` seen in the last hour, by call_id (epoch ms first seen), so
   * a call seen by several samples acknowledges once. Absent when none.
   */
  readonly ackCalls?: Readonly<Record<string, number>>;
  /**
   * The rules of the firing alerts, by name, as the rules file said at the last successful
   * poll: a rule the file no longer has tells its firing alerts resolved from it (`retired.ts`,
   * contract 6.1 rule 8). Absent when nothing fires.
   */
  readonly rules?: Readonly<Record<string, RememberedRule>>;
}

/** What a rule said of its alerts' messages, kept while they fire. */
export interface RememberedRule {
  readonly severity: Severity;
  readonly resolved: boolean;
  /**
   * Its `notify` lists, oldest first, each from the poll that first read it (`since`, epoch ms;
   * the first from 0): the last is the file's now. An earlier one is kept while an alert that
   * fired under it still fires, so its resolution knows which channels heard the firing.
   */
  readonly notified: readonly { readonly since: number; readonly notify: readonly string[] }[];
}

export interface Evaluation {
  readonly state: SourceState;
  readonly notifications: readonly Notification[];
  /** Calls to `ack.did` from numbers in no channel (first seen in this poll): acknowledge nothing. */
  readonly refusedAckCalls?: number;
}
