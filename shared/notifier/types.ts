import type { NotificationStatus } from '../messages/types';
import type { Override } from '../oncall/types';
import type { Severity, SourceName } from '../types/config';

export const NOTIFIER_STATE_VERSION = 1;

/**
 * `alerts`: grouped events; `digest`: deferred or capped events, sent later (contract section
 * 6); `handoff`: a rotation's incoming person told their shift and what fires (section 8).
 */
export const MESSAGE_KINDS = ['alerts', 'digest', 'escalation', 'ack', 'handoff'] as const;
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
  /**
   * A rotation's channel (contract section 8): the person its SMS and email reach, whom the
   * SNS filter policies of people's subscriptions route on. Absent for other channels.
   */
  readonly oncall?: string;
  /**
   * An `ack` message confirming a call (contract 6.1 rule 7): the caller's number (E.164). Its
   * SMS reaches that number alone, whatever the channel's `minSeverity`: every SMS subscription
   * admits a message with `to` only when `to` is its own number (SNS attribute `to`).
   */
  readonly to?: string;
}

/** A message and what it delivers, for the caller's bookkeeping (not part of the JSON). */
export interface Outbound {
  readonly message: Message;
  /**
   * Ids of the events this message is the first to tell its channel (an SMS-cap digest, which
   * recaps events already emailed, delivers none).
   */
  readonly delivers: readonly string[];
  /**
   * For delivered events that stand for others (a flood folded earlier events of their alert
   * into them, `fold.ts`): by id, how many such events this message delivers with it. The
   * message tells their alert's line exactly as it would with every event kept.
   */
  readonly folded?: Readonly<Record<string, number>>;
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
  /**
   * Epoch ms of the firing this event belongs to (a firing's own time; a repeat's or a
   * resolution's earlier one). Absent for events decided before the engine said it.
   */
  readonly firedAt?: number;
  /**
   * A resolution its rule does not tell (`resolved: false`, `Notification.untold`): it joins
   * its firing where a channel still holds it (told once, resolved, contract 6.1 rule 3) and is
   * dropped where the firing was told.
   */
  readonly untold?: true;
  /**
   * The first telling of a firing a silence kept untold (the firing or a repeat of it, once
   * the silence ended): the alert's page, as its first firing would have been (contract 6.1
   * rules 2 and 4).
   */
  readonly firstTold?: true;
  /**
   * An escalation step's telling, deferred by active hours to the channel's digest: still the
   * page it would have been when due while its alert fires unacknowledged (contract 6.1 rules
   * 2 and 5), and, as an escalation,
   * outside the channel's groups (the alert does not count as firing in them).
   */
  readonly escalation?: true;
  /**
   * A firing a silence kept untold, told once it ended on a channel that heard it before (an
   * escalation's message told it there): not its page, even its first firing's own event.
   */
  readonly again?: true;
  readonly sms: string;
  readonly subject: string;
  /** The event's full email text; dropped once a message is too large to show it whole. */
  readonly text?: string;
  /**
   * Earlier events of the same alert folded into this one (`fold.ts`, on a flood): a message
   * that delivers this event delivers them too. Absent: none.
   */
  readonly folded?: number;
  /**
   * A resolution routed to a channel that never heard the firing (the rule's `notify` changed
   * while it fired, `Notification.newTo`): its line tells the firing time (contract 6.1 rule 3).
   */
  readonly unheard?: true;
  /**
   * A firing of an alert the notifier does not follow: the limit of followed alerts it found
   * reached (`follow.ts`). Its message says no escalation or acknowledgement will come of it.
   */
  readonly unfollowed?: number;
  /**
   * A firing told again because an acknowledgement by call ran out (`ack.timeout`, contract 6.1
   * rule 7): who called. Its message says so rather than repeating the firing's own SMS.
   */
  readonly ackLapsed?: string;
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
  /**
   * The held events include the first firing of a critical alert: due after `wait` at most
   * (contract 6.1 rule 2; the cap never holds the SMS of the message that tells it).
   */
  readonly pages?: true;
  /**
   * Keys of the alerts its messages told firing and not yet resolved (told, or untold with
   * `resolved: false`): once empty, the group is over and its next alert starts it afresh
   * (contract 6.1 rule 2). Absent: not known (a state of an earlier version, or more than
   * `MAX_GROUP_FIRING`), and the group keeps its interval.
   */
  readonly firing?: readonly string[];
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
 * A silence (Alertmanager's): while `startsAt <= now < endsAt`, events of alerts it matches are
 * recorded as silenced instead of sent. Matchers are equality on `rule`, `severity`, `source`
 * or a label; every one must hold, and there is at least one.
 */
export interface Silence {
  readonly id: string;
  readonly matchers: Readonly<Record<string, string>>;
  /** Epoch ms. */
  readonly startsAt: number;
  readonly endsAt: number;
  readonly comment: string;
  readonly createdBy: string;
  /** Events it kept from being sent. */
  readonly silenced?: number;
}

/** Who acknowledged an alert, when, and how. */
export interface Acknowledgement {
  readonly by: string;
  /** Epoch ms. */
  readonly at: number;
  /** `cli`: `telealert ack` or a timeline action; `call`: a call to `ack.did`; `chat`: a chat button. */
  readonly via: 'cli' | 'call' | 'chat';
  /**
   * An acknowledgement by call lasts `ack.timeout` (contract 6.1 rule 7): epoch ms when it
   * lapses (the alert, still firing, is told again and its escalation resumes). Absent: until
   * the alert resolves.
   */
  readonly until?: number;
}

/**
 * A firing alert the notifier follows: to tell its repeats from a new firing, to acknowledge
 * it, to escalate it, and to tell it once the silence that kept its firing from being sent
 * ends. Forgotten when it resolves.
 */
export interface TrackedAlert {
  readonly rule: string;
  readonly source: SourceName;
  /** Its latest firing event's (a rules file deployed while it fires may change its rule's). */
  readonly severity: Severity;
  readonly labels: Readonly<Record<string, string>>;
  /** The channels its events go to (the rule's `notify`). */
  readonly channels: readonly string[];
  /** Epoch ms of the firing event that started it. */
  readonly firedAt: number;
  /** Epoch ms of its latest firing event (the firing, or a repeat). */
  readonly lastFiringAt: number;
  readonly ack?: Acknowledgement;
  /** The escalation frozen when it fired (Grafana OnCall's snapshot); steps done so far. */
  readonly escalate?: readonly { readonly afterMs: number; readonly notify: readonly string[] }[];
  readonly escalated?: number;
  /**
   * Its latest firing event, kept while something may still tell it (an escalation step to
   * come, or a firing a silence kept untold). Without the full email text.
   */
  readonly event?: HeldEvent;
  /** The firing was silenced and not told yet: the silence whose end tells it. */
  readonly untoldSince?: number;
  /**
   * With `untoldSince`: the channels the silence kept the firing from (a silence that matched
   * while a channel held the event). Absent: all of `channels`.
   */
  readonly untoldOn?: readonly string[];
  /**
   * With `untoldSince`: by channel, the event the silence kept there, where it is not `event`
   * (channels hold events apart, and a deploy may change the rule's severity between them: its
   * telling there is that event, as it was).
   */
  readonly untoldEvents?: Readonly<Record<string, HeldEvent>>;
  /**
   * Epoch ms of the first message that told its firing to one of its own channels: escalation
   * steps count from it (contract 6.1 rule 4).
   */
  readonly heardAt?: number;
  /**
   * Its own channels a message told its firing to: a resolution to one it was kept from (a
   * silence) tells the time it fired (contract 6.1 rule 3). Absent: not known (followed before
   * it was kept), `unheard` says it of all of them.
   */
  readonly heardOn?: readonly string[];
  /**
   * Channels an escalation step of it was deferred to (active hours) and a silence then kept
   * it from: they did not hear the firing from it, until a message tells it there.
   */
  readonly escalationKept?: readonly string[];
  /** No message has told its firing to its own channels yet (held, deferred or silenced). */
  readonly unheard?: true;
  /**
   * Epoch ms of the first step that found its rule gone from the rules file: it escalates no
   * further and waits for the resolution the engine tells of it (contract 6.1 rule 8).
   */
  readonly retiredAt?: number;
}

/**
 * Everything the notifier remembers between runs: plain, serialisable data, one item
 * deployed. Per channel the grouping state; beside it the people's side (contract section 6):
 * silences, the firing alerts followed for acknowledgement and escalation, and the calls to
 * `ack.did` already taken. The people's side is absent while empty.
 */
export interface NotifierState {
  readonly version: typeof NOTIFIER_STATE_VERSION;
  readonly channels: Readonly<Record<string, ChannelState>>;
  readonly silences?: readonly Silence[];
  /** By alert key. */
  readonly alerts?: Readonly<Record<string, TrackedAlert>>;
  /** Calls to `ack.did` taken, by call_id (epoch ms): a call acknowledges once. */
  readonly ackCalls?: Readonly<Record<string, number>>;
  /**
   * By caller (E.164): when their last call was confirmed (epoch ms). A caller gets at most one
   * confirmation per `ACK_ANSWER_EVERY_MS` (contract 6.1 rule 7); kept that long.
   */
  readonly ackAnswered?: Readonly<Record<string, number>>;
  /**
   * Firing alerts the notifier does not follow (their rule neither repeats nor escalates, or
   * the followed alerts were at their limit) but knows to be firing until they resolve, by
   * key: what an `ack` message tells as firing with nothing to acknowledge (`noted.ts`).
   */
  readonly firing?: Readonly<Record<string, FiringNote>>;
  /** Overrides of rotations (contract section 8), in the order added; absent while none. */
  readonly overrides?: readonly Override[];
  /** By rotation channel: the person last handed the pager (told by a `handoff` message). */
  readonly oncall?: Readonly<Record<string, string>>;
}

/**
 * A firing alert the notifier knows of without following it (`NotifierState.firing`): what a
 * followed one knows of its identity, channels and firings, without acknowledgement, escalation
 * or silence keeping.
 */
export type FiringNote = Pick<
  TrackedAlert,
  'rule' | 'source' | 'severity' | 'labels' | 'channels' | 'lastFiringAt' | 'heardOn'
>;

/** An event not sent, and why (recorded, so nothing is lost without a trace). */
export interface MutedEvent {
  readonly id: string;
  readonly key: string;
  /**
   * `silenced`: by the silence `by`; `acknowledged`: a repeat of an alert `by` acknowledged;
   * `unanswered`: a call to `ack.did` from `by` that acknowledged but is not confirmed (its
   * caller had a confirmation less than 10 minutes before: contract 6.1 rule 7).
   */
  readonly reason: 'silenced' | 'acknowledged' | 'unanswered';
  readonly by: string;
}

/**
 * A firing told but not followed (`follow.ts`): `full`, the followed alerts were at their limit
 * and none less severe; `displaced`, it was followed and a more severe newcomer took its place
 * (its escalation dropped, an acknowledgement no longer holds its repeats).
 */
export interface UnfollowedAlert {
  readonly key: string;
  readonly rule: string;
  readonly severity: Severity;
  readonly reason: 'full' | 'displaced';
}

/** What one step decided. */
export interface Decision {
  readonly state: NotifierState;
  /** In the order they should go out. */
  readonly messages: readonly Outbound[];
  /**
   * When the notifier next has work with no new event (a held group, a digest, an escalation
   * step, a silence's end); epoch ms.
   */
  readonly nextDueAtMs: number | undefined;
  /**
   * The same without rotations' handoffs (which come forever): when something held, deferred
   * or followed is next due. Undefined: only handoffs remain (replay stops ticking then).
   */
  readonly heldDueAtMs: number | undefined;
  /** Events of this step that were recorded instead of sent. */
  readonly muted: readonly MutedEvent[];
  /** Firings of this step not followed, and followed alerts displaced, in order. */
  readonly unfollowed: readonly UnfollowedAlert[];
}
