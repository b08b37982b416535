import type { Severity, SourceName } from '../../../shared/types/config';

/**
 * The reference notifier's memory: logs only, appended to and never folded. Every decision
 * is recomputed from them at each step (`model.ts`), so what it remembers is what happened.
 */

/** A firing, from its first firing event to its end. */
export interface Episode {
  readonly id: number;
  readonly key: string;
  readonly rule: string;
  readonly severity: Severity;
  readonly source: SourceName;
  readonly labels: Readonly<Record<string, string>>;
  readonly firedAt: number;
  /** The step that first saw it. */
  readonly seenAt: number;
  /** Channels its rule notified when it fired. */
  readonly channels: readonly string[];
  /** Firing events (the firing and its repeats): their own times. */
  readonly firings: number[];
  /** Its latest firing event's severity, told or not (a deploy may change its rule's). */
  latestSeverity?: Severity;
  /** The step that saw it end, and how. */
  closed?: {
    readonly seenAt: number;
    readonly at: number;
    readonly how: 'resolve' | 'end' | 'removed';
  };
}

/** An event routed to one channel: it waits there until it is told, silenced or deferred. */
export interface Item {
  readonly id: number;
  readonly channel: string;
  readonly episode: Episode;
  readonly status: 'firing' | 'resolved';
  /** The event's own time (a message's `alerts[].at`). */
  readonly at: number;
  /** The step it reached the channel. */
  readonly arrival: number;
  readonly severity: Severity;
  /** The first firing of the episode, or its telling once a silence that kept it ended. */
  readonly first: boolean;
  /** An escalation step's telling, deferred by active hours. */
  readonly escalation?: number;
  /**
   * The telling, once a silence ended, of an escalation step's the silence kept: told as any
   * firing there, but the channel is the step's, not one of the episode's own.
   */
  readonly stepRetold?: true;
  /** The group it waits (or was told) in: its episode's first waiting event's (`channel.ts`). */
  group?: string;
  fate?: { readonly how: 'told' | 'silenced' | 'deferred'; readonly at: number };
  /** Deferred items are told later by a digest. */
  digested?: number;
}

export interface Line {
  readonly key: string;
  readonly status: 'firing' | 'resolved';
  readonly at: number;
  readonly firedAt?: number;
  readonly episode: number;
  readonly severity: Severity;
  /**
   * Its events' own severities, in order (a rules file deployed while the alert fired may have
   * changed them): the SMS cap owes an alert as the latest of them it owes an SMS for. Absent:
   * `severity` alone.
   */
  readonly severities?: readonly Severity[];
  /** It tells the episode's first firing at critical: a page (the SMS cap never holds it). */
  readonly first: boolean;
  /**
   * It tells an escalation step at critical deferred by active hours: a page while the alert
   * fires unacknowledged.
   */
  readonly escalation: boolean;
}

export interface ModelMessage {
  readonly at: number;
  readonly channel: string;
  /**
   * `recap`: the SMS cap's digest, retelling what was emailed; `handover`: what a channel gone
   * from the rules file held, told to `health.notify`.
   */
  readonly kind: 'alerts' | 'digest' | 'escalation' | 'ack' | 'recap' | 'handover';
  readonly lines: readonly Line[];
  /** For `alerts`: the group; for `escalation`: the step. */
  readonly group?: string;
  sms: boolean;
  /** For `ack`: no alert of the channel was firing. */
  readonly noneFiring?: boolean;
  readonly caller?: string;
}

export interface SilenceRecord {
  readonly id: string;
  readonly matchers: Readonly<Record<string, string>>;
  readonly startsAt: number;
  endsAt: number;
}

export interface AckRecord {
  readonly episode: Episode;
  readonly at: number;
  readonly via: 'cli' | 'call';
  /** Acknowledgements by call last `ack.timeout`. */
  readonly until?: number;
  /** The step that told the alert again once it lapsed. */
  lapsedTold?: number;
}

export interface History {
  readonly episodes: Episode[];
  readonly items: Item[];
  readonly messages: ModelMessage[];
  readonly silences: SilenceRecord[];
  readonly acks: AckRecord[];
  /** Escalation steps done, with the channels they named then. */
  readonly escalations: {
    readonly episode: Episode;
    readonly step: number;
    readonly at: number;
    readonly notify: readonly string[];
  }[];
  /** Items whose SMS the cap held, and when a recap told them. */
  readonly smsHeld: {
    readonly channel: string;
    readonly episode: Episode;
    readonly status: Line['status'];
    /** The line's severity when the cap held it. */
    readonly severity: Severity;
    recapped?: number;
  }[];
  /** Events recorded instead of sent. */
  readonly muted: { readonly episode: Episode; readonly at: number; readonly why: string }[];
  /** Ack confirmations sent, by caller. */
  readonly confirmations: { readonly caller: string; readonly at: number }[];
}

export function emptyHistory(): History {
  return {
    episodes: [],
    items: [],
    messages: [],
    silences: [],
    acks: [],
    escalations: [],
    smsHeld: [],
    muted: [],
    confirmations: [],
  };
}
