import type { ChannelConfig, Config } from '../types/config';
import { isActive, nextWindowStart } from './active';
import { type Candidate, capDigest, capSms, HOUR_MS, smsRoomAt } from './cap';
import { compose, type MessageReason, RICH_ALERTS } from './compose';
import { DeferredFirings } from './deferred';
import { type Direct, directCandidates } from './direct';
import { foldEvents } from './fold';
import { groupOf, trimTexts } from './group';
import { ChannelGroups, emptiedOf, stillFiring, withoutHushedEnds } from './groups';
import { type SilencedEvent, unsilenced } from './mute';
import { pagesIn, wantsSms } from './pages';
import type { ChannelState, GroupState, HeldEvent, Outbound, Silence } from './types';

export const EMPTY_CHANNEL: ChannelState = {
  groups: {},
  smsSentAt: [],
  smsHeld: [],
  deferred: [],
};

/** How a channel keeps its lists (`DecideOptions`). */
export interface ChannelOptions {
  readonly foldAbove: number;
  readonly release: boolean;
  /**
   * Whether a followed alert fires unacknowledged in this step (after people's actions and
   * this step's events), in the firing `firedAt` names when given.
   */
  readonly firesUnacknowledged: (key: string, firedAt: number | undefined) => boolean;
  /**
   * Whether a later firing of the alert than the one `firedAt` names was told on this channel
   * (by any message of it, an escalation's too): an SMS the cap held of the earlier firing is
   * no longer owed (the digest tells each alert's latest status, contract 6.1 rule 3).
   */
  readonly laterFiringTold?: (key: string, firedAt: number, channel: string) => boolean;
}

/**
 * One channel's stages in one notifier step (Alertmanager's aggregation groups and notify
 * pipeline, per channel): `route` the step's events into groups (or the active-hours digest),
 * `flush` what is due (the silence stage runs here, when a message goes: contract 6.1 rule 5),
 * then `finish` with the messages that skip grouping (escalations, deferred like the rest
 * outside active hours; ack confirmations), the SMS cap over all of them together (what it
 * holds kept in their order), and the cap's digest SMS. Pure: time is `nowMs`.
 */
export class ChannelFlow {
  readonly #groups: ChannelGroups;
  #smsSentAt: number[];
  #smsHeld: HeldEvent[];
  #deferred: HeldEvent[];
  readonly #inWindow: boolean;
  readonly #active: boolean;
  readonly #decided: Candidate[] = [];

  constructor(
    readonly config: Config,
    readonly channel: ChannelConfig,
    previous: ChannelState,
    readonly nowMs: number,
    readonly options: ChannelOptions,
  ) {
    this.#groups = new ChannelGroups(channel, previous.groups);
    this.#smsSentAt = previous.smsSentAt.filter((at) => at > nowMs - HOUR_MS).sort((a, b) => a - b);
    this.#smsHeld = [...previous.smsHeld];
    this.#deferred = [...previous.deferred];
    this.#inWindow = isActive(channel.active, nowMs, config.timezone);
    this.#active = this.#inWindow || options.release;
  }

  #candidates(
    reason: MessageReason,
    groupKey: string,
    events: readonly HeldEvent[],
    pages: boolean,
    early = false,
  ): Candidate[] {
    const parts = compose({
      config: this.config,
      channel: this.channel,
      reason,
      groupKey,
      events,
      nowMs: this.nowMs,
      withSms: wantsSms(this.channel, events),
      ...(early ? { early } : {}),
    });
    return parts.map((part, index) => {
      // A set, not ids.includes: a digest of a night's events is thousands of ids a part.
      const told = new Set(part.ids);
      return {
        part,
        criticalFirst: pages && index === 0,
        events: events.filter((event) => told.has(event.id)),
      };
    });
  }

  /**
   * Routes a step's events into the channel's groups, or into its digest when inactive. The
   * first firing of a critical alert brings its group's message forward to its `wait` (the
   * held events go with it) and pages past the cap (contract 6.1 rule 2). A resolution ends its
   * alert in the channel's other groups (`ChannelGroups.endElsewhere`).
   */
  route(events: readonly HeldEvent[]): void {
    this.#groups.endElsewhere(events);
    if (!this.#inWindow) {
      // What the groups hold is older than these events: deferred first, so the digest tells
      // each alert's latest status (a held repeat after its resolution: firing, rule 3).
      if (events.length > 0) {
        for (const [key, group] of this.#groups.byKey) {
          if (group.held.length > 0) this.#defer(key, group);
        }
      }
      const deferred = new DeferredFirings(this.#deferred);
      // One at a time: a night's deferred events can be more than push() takes arguments.
      for (const event of events) {
        const group = groupOf(this.channel, event).key;
        if (event.untold === true && this.#groups.holds(event, deferred, group) === false) {
          this.#groups.over(event);
        } else deferred.push(event);
      }
      return;
    }
    this.#groups.hold(events, new DeferredFirings(this.#deferred), this.nowMs);
  }

  /**
   * The active-hours digest when the channel is active, and the messages of due groups (all
   * that hold events, when releasing); a group due while the channel is inactive is deferred
   * instead. Events a silence in force matches now are not told: they are returned, to be
   * recorded. `told`: the events of the messages decided.
   */
  flush(silences: readonly Silence[]): {
    readonly told: readonly HeldEvent[];
    readonly silenced: readonly SilencedEvent[];
  } {
    const { nowMs, options } = this;
    const silenced: SilencedEvent[] = [];
    const start = this.#decided.length;
    // Released outside the window: the held groups join the digest (one message, not several).
    if (options.release && !this.#inWindow) this.#flushGroups(false, true, silences, silenced);
    if (this.#active && this.#deferred.length > 0) {
      const deferred = unsilenced(this.#deferred, silences, nowMs, silenced);
      if (deferred.length > 0) {
        const digest = this.#candidates(
          'deferred',
          'active-hours',
          deferred,
          pagesIn(deferred, options.firesUnacknowledged),
          !this.#inWindow,
        );
        for (const candidate of digest) this.#decided.push(candidate);
        // An escalation stands outside the channel's groups, told at once or deferred alike.
        this.#groups.noteTold(deferred.filter((event) => event.escalation !== true));
      }
      this.#deferred = [];
    }
    this.#flushGroups(this.#active, options.release, silences, silenced);
    // A group with nothing held whose alerts all resolved, or whose interval has passed and
    // that knows of no alert firing in it, is forgotten: its next event starts it afresh
    // (Alertmanager's new aggregation group). One that knows its firing alerts is kept, so a
    // resolution after its interval does not make it look over while others still fire.
    for (const [key, group] of this.#groups.byKey) {
      const open =
        group.lastSentAt !== undefined && nowMs < group.lastSentAt + this.channel.group.intervalMs;
      const over = group.firing !== undefined && group.firing.length === 0;
      const known = group.firing !== undefined && group.firing.length > 0;
      if (group.held.length === 0 && (over || (!open && !known))) this.#groups.byKey.delete(key);
    }
    const told = this.#decided.slice(start).flatMap((candidate) => candidate.events);
    return { told, silenced };
  }

  #flushGroups(
    active: boolean,
    release: boolean,
    silences: readonly Silence[],
    silenced: SilencedEvent[],
  ): void {
    const { nowMs } = this;
    for (const [key, group] of this.#groups.byKey) {
      const ready = release || (group.dueAt !== undefined && group.dueAt <= nowMs);
      if (group.held.length === 0 || !ready) continue;
      if (!active) {
        this.#defer(key, group);
        continue;
      }
      const told = unsilenced(group.held, silences, nowMs, silenced);
      // A resolution a silence kept untold still ends its alert: the group has nothing firing
      // once the others are over too (contract 6.1 rule 2).
      const before = withoutHushedEnds(group.firing, group, told);
      const emptied = emptiedOf({ ...group, ...(before === undefined ? {} : { firing: before }) });
      if (told.length === 0) {
        this.#groups.byKey.set(key, emptied);
        continue;
      }
      for (const candidate of this.#candidates(
        'alerts',
        key,
        told,
        pagesIn(told, this.options.firesUnacknowledged),
      )) {
        this.#decided.push(candidate);
      }
      const { firing: _before, ...rest } = emptied;
      // Each alert by its latest event: a firing told here whose later resolution a silence
      // kept untold is over too.
      const firing = withoutHushedEnds(stillFiring(group.firing, told), group, told);
      this.#groups.byKey.set(key, { ...rest, lastSentAt: nowMs, ...(firing ? { firing } : {}) });
    }
  }

  /** A group's held events join the active-hours digest, in order; the group holds none. */
  #defer(key: string, group: GroupState): void {
    for (const event of group.held) this.#deferred.push(event);
    this.#groups.byKey.set(key, emptiedOf(group));
  }

  /**
   * Escalations, ack confirmations and rotations' handoffs after the step's own messages, gone
   * channels' handovers before them (what a gone channel kept is older than this step's
   * events: the latest status goes last, contract 6.1 rule 3): an escalation to a channel
   * outside its active hours joins its digest (contract 6.1 rule 5); a handoff goes whatever
   * the hours (who carries the pager is not an alert), and so does a handover (contract 6.1
   * rule 8: at once); then the SMS cap over the step's messages together (what it holds kept in
   * their order), and the cap's digest SMS once the hour has room (events a silence now matches
   * left out: their email told them). The channel's state and messages.
   */
  finish(
    direct: readonly Direct[],
    silences: readonly Silence[],
  ): { state: ChannelState | undefined; messages: Outbound[]; dueAtMs: number | undefined } {
    const { config, channel, nowMs, options } = this;
    const zone = config.timezone;
    const handedOver: Candidate[] = [];
    for (const item of direct) {
      if (item.reason === 'escalation' && !this.#active) {
        // Deferred: still the page it would have been now, while the alert fires
        // unacknowledged (contract 6.1 rules 2 and 5; `pagesIn`).
        for (const event of item.events) this.#deferred.push({ ...event, escalation: true });
        continue;
      }
      const candidates = directCandidates(
        config,
        channel,
        nowMs,
        item,
        options.firesUnacknowledged,
      );
      const into = item.reason === 'handover' ? handedOver : this.#decided;
      for (const candidate of candidates) into.push(candidate);
    }
    const decided = [...handedOver, ...this.#decided];
    const messages = capSms(channel, this.#smsSentAt, this.#smsHeld, decided, nowMs);

    // Held SMS go as one digest once the hour has room (and the channel is active).
    const room = options.release || smsRoomAt(channel, this.#smsSentAt) <= nowMs;
    if (this.#active && this.#smsHeld.length > 0 && room) {
      const digest = capDigest(
        config,
        channel,
        this.#smsSentAt,
        this.#smsHeld,
        silences,
        nowMs,
        options.laterFiringTold,
      );
      for (const message of digest) messages.push(message);
      this.#smsHeld = [];
    }

    const due: number[] = [];
    for (const group of this.#groups.byKey.values())
      if (group.dueAt !== undefined) due.push(group.dueAt);
    if (this.#deferred.length > 0) due.push(nextWindowStart(channel.active, nowMs, zone));
    if (this.#smsHeld.length > 0) {
      const at = Math.max(smsRoomAt(channel, this.#smsSentAt), nowMs);
      due.push(nextWindowStart(channel.active, at, zone));
    }
    const { foldAbove } = options;
    const state: ChannelState = {
      groups: Object.fromEntries(
        [...this.#groups.byKey].map(([key, group]) => [
          key,
          { ...group, held: trimTexts(foldEvents(group.held, foldAbove), RICH_ALERTS) },
        ]),
      ),
      smsSentAt: this.#smsSentAt,
      smsHeld: trimTexts(foldEvents(this.#smsHeld, foldAbove), 0),
      deferred: trimTexts(foldEvents(this.#deferred, foldAbove), RICH_ALERTS),
    };
    const empty =
      this.#groups.byKey.size === 0 &&
      this.#smsSentAt.length === 0 &&
      this.#smsHeld.length === 0 &&
      this.#deferred.length === 0;
    return {
      state: empty ? undefined : state,
      messages,
      dueAtMs: due.length === 0 ? undefined : due.reduce((a, b) => Math.min(a, b)),
    };
  }
}
