import type { ChannelConfig, Config } from '../types/config';
import { SEVERITIES } from '../types/config';
import { isActive, nextWindowStart } from './active';
import { highestSeverity } from './bodies';
import { type Candidate, capSms, HOUR_MS, smsRoomAt } from './cap';
import { compose, type MessageReason, RICH_ALERTS } from './compose';
import type { Direct } from './direct';
import { foldEvents } from './fold';
import { groupOf, trimTexts } from './group';
import { silenceFor } from './silence';
import { isFirstFiring, isPage } from './tracked';
import type { ChannelState, GroupState, HeldEvent, Outbound, Silence } from './types';

/**
 * A group remembers at most this many alerts it told firing (`GroupState.firing`); past it, it
 * keeps its interval as if one of them told no resolution. Bounds the state on a flood.
 */
const MAX_GROUP_FIRING = 200;

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

/** An event a silence matched when its channel was about to tell it. */
export interface SilencedEvent {
  readonly event: HeldEvent;
  readonly by: Silence;
}

function wantsSms(channel: ChannelConfig, events: readonly HeldEvent[]): boolean {
  if (channel.sms.length === 0) return false;
  const floor = SEVERITIES.indexOf(channel.minSeverity ?? 'info');
  return SEVERITIES.indexOf(highestSeverity({ alerts: events })) >= floor;
}

/**
 * A message telling these events pages past the SMS cap (contract 6.1 rule 2): it tells a
 * critical alert's first firing, even told resolved (it fired and resolved while held), or the
 * first telling of a firing a silence kept untold (`isPage`), not a repeat or resolution alone;
 * or a critical escalation deferred by active hours while its alert still fires
 * unacknowledged (resolved or acknowledged meanwhile, it is news, no longer a page).
 */
function pagesIn(
  events: readonly HeldEvent[],
  firesUnacknowledged: ChannelOptions['firesUnacknowledged'],
): boolean {
  const latest = new Map<string, HeldEvent>();
  for (const event of events) latest.set(event.key, event);
  return events.some((event) =>
    event.escalation === true
      ? event.severity === 'critical' &&
        latest.get(event.key)?.status === 'firing' &&
        firesUnacknowledged(event.key, firingOf(event))
      : isPage(event),
  );
}

/** When the firing an event belongs to fired (undefined: not known, an event of an older version). */
function firingOf(event: HeldEvent): number | undefined {
  return event.firedAt ?? (event.status === 'firing' ? event.at : undefined);
}

/** An event's alert and firing, as the groups' homes are kept by. */
function homeOf(event: HeldEvent): string {
  return `${event.key}\u0000${String(firingOf(event))}`;
}

/**
 * The active-hours list and the firings it holds, by alert and firing, to ask of each routed
 * event without a pass over the list (a night's digest holds thousands of events).
 */
class DeferredFirings {
  #tags: Set<string> | undefined;

  constructor(readonly list: HeldEvent[]) {}

  static #tag(key: string, firing: number | undefined | '*'): string {
    return `${key}\u0000${String(firing)}`;
  }

  #index(): Set<string> {
    if (this.#tags === undefined) {
      this.#tags = new Set();
      for (const event of this.list) this.#add(this.#tags, event);
    }
    return this.#tags;
  }

  #add(tags: Set<string>, event: HeldEvent): void {
    tags.add(DeferredFirings.#tag(event.key, firingOf(event)));
    tags.add(DeferredFirings.#tag(event.key, '*'));
  }

  /** An event of the same alert and firing is deferred (any firing, when not known). */
  has(event: HeldEvent): boolean {
    if (this.list.length === 0) return false;
    const firing = firingOf(event);
    return this.#index().has(DeferredFirings.#tag(event.key, firing ?? '*'));
  }

  push(event: HeldEvent): void {
    this.list.push(event);
    if (this.#tags !== undefined) this.#add(this.#tags, event);
  }
}

/**
 * The group's firing alerts less those whose resolution it held and a silence kept untold
 * (`told`: the held events that go).
 */
function withoutHushedEnds(
  group: GroupState,
  told: readonly HeldEvent[],
): readonly string[] | undefined {
  if (group.firing === undefined || told.length === group.held.length) return group.firing;
  const going = new Set(told);
  const ended = new Set(
    group.held
      .filter((event) => event.status === 'resolved' && !going.has(event))
      .map((event) => event.key),
  );
  return ended.size === 0 ? group.firing : group.firing.filter((key) => !ended.has(key));
}

/** The group once its held events went (told, deferred or silenced): its interval goes on. */
function emptiedOf(group: GroupState): GroupState {
  return {
    labels: group.labels,
    ...(group.lastSentAt === undefined ? {} : { lastSentAt: group.lastSentAt }),
    held: [],
    ...(group.firing === undefined ? {} : { firing: group.firing }),
  };
}

/**
 * One channel's stages in one notifier step (Alertmanager's aggregation groups and notify
 * pipeline, per channel): `route` the step's events into groups (or the active-hours digest),
 * `flush` what is due (the silence stage runs here, when a message goes: contract 6.1 rule 5),
 * then `finish` with the messages that skip grouping (escalations, deferred like the rest
 * outside active hours; ack confirmations), the SMS cap over all of them in order, and the
 * cap's digest SMS. Pure: time is `nowMs`.
 */
export class ChannelFlow {
  readonly #groups: Map<string, GroupState>;
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
    this.#groups = new Map(Object.entries(previous.groups));
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
   * alert in the channel's other groups (`#endElsewhere`).
   */
  route(events: readonly HeldEvent[]): void {
    const { channel, nowMs } = this;
    this.#endElsewhere(events);
    if (!this.#inWindow) {
      // What the groups hold is older than these events: deferred first, so the digest tells
      // each alert's latest status (a held repeat after its resolution: firing, rule 3).
      if (events.length > 0) {
        for (const [key, group] of this.#groups) {
          if (group.held.length > 0) this.#defer(key, group);
        }
      }
      const deferred = new DeferredFirings(this.#deferred);
      // One at a time: a night's deferred events can be more than push() takes arguments.
      for (const event of events) {
        const group = groupOf(this.channel, event).key;
        if (event.untold === true && this.#holds(event, deferred, group) === false) {
          this.#over(event);
        } else deferred.push(event);
      }
      return;
    }
    // The held lists this call made, appended in place: a copy per event made a step of many
    // events for one group (the pollers' backlog after a notifier outage) quadratic.
    const owned = new Map<string, HeldEvent[]>();
    const deferred = new DeferredFirings(this.#deferred);
    const homes = this.#homes();
    for (const event of events) {
      const home = this.#home(event, homes);
      const holds = this.#holds(event, deferred, home.key);
      if (holds === false) {
        this.#over(event);
        continue;
      }
      if (holds === 'deferred') {
        deferred.push(event);
        continue;
      }
      const { key, labels } = home;
      homes.set(homeOf(event), key);
      const group = this.#groups.get(key);
      const page = isPage(event);
      const soon = nowMs + channel.group.waitMs;
      if (group !== undefined && group.held.length > 0) {
        const mine = owned.get(key);
        const held = mine ?? [...group.held];
        if (mine === undefined) owned.set(key, held);
        held.push(event);
        const forward = page && (group.dueAt ?? soon) > soon;
        if (mine === undefined || forward || (page && group.pages !== true)) {
          this.#groups.set(key, {
            ...group,
            held,
            ...(forward ? { dueAt: soon } : {}),
            ...(page ? { pages: true } : {}),
          });
        }
        continue;
      }
      const quiet =
        group?.lastSentAt === undefined || nowMs >= group.lastSentAt + channel.group.intervalMs;
      const held = [event];
      owned.set(key, held);
      // A new group knows nothing fires in it; a group kept for its firing alerts goes on.
      const firing = group === undefined ? [] : group.firing;
      this.#groups.set(key, {
        labels,
        ...(quiet || group?.lastSentAt === undefined ? {} : { lastSentAt: group.lastSentAt }),
        ...(firing === undefined ? {} : { firing }),
        // A critical first firing goes after `wait`, or with the interval's message if sooner.
        dueAt: quiet
          ? soon
          : Math.min(
              page ? soon : Number.POSITIVE_INFINITY,
              (group?.lastSentAt ?? nowMs) + channel.group.intervalMs,
            ),
        held,
        ...(page ? { pages: true } : {}),
      });
    }
  }

  /**
   * Where an event goes. An event of a firing the channel still defers joins the digest, so
   * the digest tells the alert's latest status once (contract 6.1 rule 3: the window may open
   * in the very step such events come, after an outage). An untold resolution (`resolved:
   * false`) goes only where the channel still holds the firing it ends, deferred or in its
   * group; where the firing was told, nowhere (false). Any other event: to its group (true).
   */
  #holds(
    event: HeldEvent,
    deferred: DeferredFirings,
    group: string,
  ): 'deferred' | 'group' | boolean {
    if (deferred.has(event)) return 'deferred';
    if (event.untold !== true) return true;
    const firing = firingOf(event);
    const same = (other: HeldEvent) =>
      other.key === event.key && (firing === undefined || firingOf(other) === firing);
    return this.#groups.get(group)?.held.some(same) === true ? 'group' : false;
  }

  /** The group each firing with held events is held in, by alert and firing (`homeOf`). */
  #homes(): Map<string, string> {
    const homes = new Map<string, string>();
    for (const [key, group] of this.#groups) {
      for (const event of group.held) homes.set(homeOf(event), key);
    }
    return homes;
  }

  /**
   * The group an event joins: where its firing's events are held already, else its own by
   * `group.by`. One firing is told in one message: its rule's severity (a `group.by` value) may
   * change between its events when a rules file is deployed while it fires (contract 6.1 rule
   * 8); a new firing of the alert goes to its own group.
   */
  #home(event: HeldEvent, homes: ReadonlyMap<string, string>) {
    const held = homes.get(homeOf(event));
    const group = held === undefined ? undefined : this.#groups.get(held);
    return held !== undefined && group !== undefined
      ? { key: held, labels: group.labels }
      : groupOf(this.channel, event);
  }

  /**
   * A firing told here ended untold: no group counts it firing any more (its rule's severity,
   * a `group.by` value, may have changed since), so once none is, the group's next alert
   * starts it afresh (contract 6.1 rule 2).
   */
  #over(end: HeldEvent): void {
    for (const [key, group] of this.#groups) {
      if (group.firing?.includes(end.key) !== true) continue;
      this.#groups.set(key, { ...group, firing: group.firing.filter((name) => name !== end.key) });
    }
  }

  /**
   * Splits events into those to tell and those a silence in force matches now. A resolution
   * told whose first firing a silence keeps here (a deploy changed its rule's severity between
   * them, and the silence matches the firing's only) tells its firing's time: it fired and
   * resolved while held (contract 6.1 rule 3).
   */
  #unsilenced(events: readonly HeldEvent[], silences: readonly Silence[], out: SilencedEvent[]) {
    if (silences.length === 0) return events;
    const told: HeldEvent[] = [];
    const kept = new Set<string>();
    for (const event of events) {
      const by = silenceFor(silences, event, this.nowMs);
      if (by === undefined) told.push(event);
      else {
        out.push({ event, by });
        if (isFirstFiring(event)) kept.add(`${event.key}\u0000${String(firingOf(event))}`);
      }
    }
    if (kept.size === 0) return told;
    return told.map((event) =>
      event.status === 'resolved' &&
      event.unheard !== true &&
      kept.has(`${event.key}\u0000${String(firingOf(event))}`)
        ? { ...event, unheard: true as const }
        : event,
    );
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
      const deferred = this.#unsilenced(this.#deferred, silences, silenced);
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
        this.#noteTold(deferred.filter((event) => event.escalation !== true));
      }
      this.#deferred = [];
    }
    this.#flushGroups(this.#active, options.release, silences, silenced);
    // A group with nothing held whose alerts all resolved, or whose interval has passed and
    // that knows of no alert firing in it, is forgotten: its next event starts it afresh
    // (Alertmanager's new aggregation group). One that knows its firing alerts is kept, so a
    // resolution after its interval does not make it look over while others still fire.
    for (const [key, group] of this.#groups) {
      const open =
        group.lastSentAt !== undefined && nowMs < group.lastSentAt + this.channel.group.intervalMs;
      const over = group.firing !== undefined && group.firing.length === 0;
      const known = group.firing !== undefined && group.firing.length > 0;
      if (group.held.length === 0 && (over || (!open && !known))) this.#groups.delete(key);
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
    for (const [key, group] of this.#groups) {
      const ready = release || (group.dueAt !== undefined && group.dueAt <= nowMs);
      if (group.held.length === 0 || !ready) continue;
      if (!active) {
        this.#defer(key, group);
        continue;
      }
      const told = this.#unsilenced(group.held, silences, silenced);
      // A resolution a silence kept untold still ends its alert: the group has nothing firing
      // once the others are over too (contract 6.1 rule 2).
      const before = withoutHushedEnds(group, told);
      const emptied = emptiedOf({ ...group, ...(before === undefined ? {} : { firing: before }) });
      if (told.length === 0) {
        this.#groups.set(key, emptied);
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
      const firing = this.#stillFiring(before, told);
      this.#groups.set(key, { ...rest, lastSentAt: nowMs, ...(firing ? { firing } : {}) });
    }
  }

  /**
   * Resolutions routed to a channel end their alerts in all its groups but their own: an
   * alert's rule's severity (a `group.by` value) may have changed since its firing was told in
   * another group (a rules file deployed while it fired), and that group must not think it
   * still fires. Its own group ends it when the resolution is told (`#stillFiring`).
   */
  #endElsewhere(events: readonly HeldEvent[]): void {
    // One group is enough to hold the alert elsewhere: the resolution's own group may not
    // exist yet (its new severity starts one).
    if (this.#groups.size === 0) return;
    let index: Map<string, string[]> | undefined;
    for (const event of events) {
      if (event.status !== 'resolved') continue;
      if (index === undefined) {
        index = new Map();
        for (const [key, group] of this.#groups) {
          for (const alert of group.firing ?? []) {
            const list = index.get(alert);
            if (list) list.push(key);
            else index.set(alert, [key]);
          }
        }
      }
      const own = groupOf(this.channel, event).key;
      for (const key of index.get(event.key) ?? []) {
        const group = this.#groups.get(key);
        if (key === own || group?.firing === undefined) continue;
        this.#groups.set(key, {
          ...group,
          firing: group.firing.filter((alert) => alert !== event.key),
        });
      }
    }
  }

  /** A group's held events join the active-hours digest, in order; the group holds none. */
  #defer(key: string, group: GroupState): void {
    for (const event of group.held) this.#deferred.push(event);
    this.#groups.set(key, emptiedOf(group));
  }

  /**
   * The digest told these events: their groups know which of their alerts fire (a group that
   * only the digest told is kept for that, with nothing held and no interval running).
   */
  #noteTold(events: readonly HeldEvent[]): void {
    const byGroup = new Map<string, { labels: Record<string, string>; events: HeldEvent[] }>();
    for (const event of events) {
      const { key, labels } = groupOf(this.channel, event);
      const entry = byGroup.get(key);
      if (entry) entry.events.push(event);
      else byGroup.set(key, { labels, events: [event] });
    }
    for (const [key, { labels, events: told }] of byGroup) {
      const group = this.#groups.get(key);
      const firing = this.#stillFiring(group === undefined ? [] : group.firing, told);
      if (group === undefined) {
        if (firing !== undefined && firing.length > 0) {
          this.#groups.set(key, { labels, held: [], firing });
        }
        continue;
      }
      const { firing: _before, ...rest } = group;
      this.#groups.set(key, { ...rest, ...(firing ? { firing } : {}) });
    }
  }

  /** The group's firing alerts once `told` went out; undefined when it cannot be known. */
  #stillFiring(
    before: readonly string[] | undefined,
    told: readonly HeldEvent[],
  ): string[] | undefined {
    if (before === undefined) return undefined;
    const firing = new Set(before);
    // Each alert by its last event told: a firing of a rule gone from the rules file followed
    // by its resolution (contract 6.1 rule 8) is over, not unknown. Told firing, it fires until
    // the engine tells it resolved at its source's next poll (rule 8; every source is polled,
    // also one no rule reads any more).
    for (const event of told) {
      if (event.status === 'resolved') firing.delete(event.key);
      else firing.add(event.key);
    }
    return firing.size > MAX_GROUP_FIRING ? undefined : [...firing];
  }

  /**
   * Escalations, ack confirmations and rotations' handoffs after the step's own messages, gone
   * channels' handovers before them (what a gone channel kept is older than this step's
   * events: the latest status goes last, contract 6.1 rule 3): an escalation to a channel
   * outside its active hours joins its digest (contract 6.1 rule 5); a handoff goes whatever
   * the hours (who carries the pager is not an alert), and so does a handover (contract 6.1
   * rule 8: at once); then the SMS cap
   * over every message in order, and the cap's digest SMS once the hour has room (events a
   * silence now matches left out: their email told them). The channel's state and messages.
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
      const parts = compose({
        config,
        channel,
        reason: item.reason,
        groupKey: item.groupKey,
        events: item.events,
        nowMs,
        withSms: item.sms ?? wantsSms(channel, item.events),
        title: item.title,
        ...(item.ack === undefined ? {} : { ack: item.ack }),
      });
      // A handover (`handover.ts`) pages for a page its gone channel kept and never sent
      // (contract 6.1 rules 2, 5 and 8), as that channel's own digest would have.
      const critical =
        item.reason === 'handover'
          ? pagesIn(item.events, options.firesUnacknowledged)
          : item.events.some((event) => event.severity === 'critical');
      parts.forEach((part, index) => {
        // An ack's SMS goes to the caller alone (`to`), whatever `minSeverity` (contract 6.1 rule 7).
        const to = index === 0 && part.message.sms !== null ? item.to : undefined;
        const message = to === undefined ? part.message : { ...part.message, to };
        (item.reason === 'handover' ? handedOver : this.#decided).push({
          part: { message, ids: index === 0 ? item.delivers : [] },
          // An escalation of a critical alert is a page that matters.
          criticalFirst: index === 0 && critical,
          // A handoff, and an ack's confirmation to its caller, neither held nor counted by the
          // cap: forged calls cannot burn the SMS budget nor hold back a page (rule 7).
          ...(item.reason === 'handoff' || item.reason === 'ack' ? { uncapped: true } : {}),
          events: item.events,
        });
      });
    }
    const decided = [...handedOver, ...this.#decided];
    const messages = capSms(channel, this.#smsSentAt, this.#smsHeld, decided, nowMs);

    // Held SMS go as one digest once the hour has room (and the channel is active).
    const room = options.release || smsRoomAt(channel, this.#smsSentAt) <= nowMs;
    if (this.#active && this.#smsHeld.length > 0 && room) {
      // A silence matches an alert as the latest SMS the digest owes of it has it (a deploy may
      // have changed the rule's severity between its firing and its resolution; an event below
      // `minSeverity` is in the list for its status only, it owes no SMS): all of it or none,
      // so the digest never tells a firing whose resolution the silence kept (contract 6.1
      // rules 3, 5).
      const latest = new Map<string, HeldEvent>();
      for (const event of this.#smsHeld) {
        if (!latest.has(event.key) || wantsSms(channel, [event])) latest.set(event.key, event);
      }
      const later = options.laterFiringTold;
      const quiet = this.#smsHeld.filter((event) => {
        const last = latest.get(event.key) ?? event;
        if (later !== undefined && event.firedAt !== undefined) {
          if (later(event.key, event.firedAt, channel.name)) return false;
        }
        return silenceFor(silences, last, nowMs) === undefined;
      });
      const parts =
        quiet.length === 0
          ? []
          : compose({
              config,
              channel,
              reason: 'capped',
              groupKey: 'sms-cap',
              events: quiet,
              nowMs,
              withSms: true,
            });
      // The digest's events were emailed already: it delivers nothing new, so one SMS suffices.
      for (const part of parts)
        messages.push({ message: part.message, delivers: [], smsHeld: false });
      if (parts.length > 0) this.#smsSentAt.push(nowMs);
      this.#smsHeld = [];
    }

    const due: number[] = [];
    for (const group of this.#groups.values()) if (group.dueAt !== undefined) due.push(group.dueAt);
    if (this.#deferred.length > 0) due.push(nextWindowStart(channel.active, nowMs, zone));
    if (this.#smsHeld.length > 0) {
      const at = Math.max(smsRoomAt(channel, this.#smsSentAt), nowMs);
      due.push(nextWindowStart(channel.active, at, zone));
    }
    const { foldAbove } = options;
    const state: ChannelState = {
      groups: Object.fromEntries(
        [...this.#groups].map(([key, group]) => [
          key,
          { ...group, held: trimTexts(foldEvents(group.held, foldAbove), RICH_ALERTS) },
        ]),
      ),
      smsSentAt: this.#smsSentAt,
      smsHeld: trimTexts(foldEvents(this.#smsHeld, foldAbove), 0),
      deferred: trimTexts(foldEvents(this.#deferred, foldAbove), RICH_ALERTS),
    };
    const empty =
      this.#groups.size === 0 &&
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
