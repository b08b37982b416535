import type { ChannelConfig } from '../types/config';
import type { DeferredFirings } from './deferred';
import { groupOf } from './group';
import { firingOf } from './pages';
import { isPage } from './tracked';
import type { GroupState, HeldEvent } from './types';

/**
 * A group remembers at most this many alerts it told firing (`GroupState.firing`); past it, it
 * keeps its interval as if one of them told no resolution. Bounds the state on a flood.
 */
const MAX_GROUP_FIRING = 200;

/** An event's alert and firing, as the groups' homes are kept by. */
function homeOf(event: HeldEvent): string {
  return `${event.key}\u0000${String(firingOf(event))}`;
}

/**
 * `firing` less the alerts whose resolution the group held and a silence kept untold (`told`:
 * the held events that go), unless a later event of the alert is told (it fired again).
 */
export function withoutHushedEnds(
  firing: readonly string[] | undefined,
  group: GroupState,
  told: readonly HeldEvent[],
): readonly string[] | undefined {
  if (firing === undefined || told.length === group.held.length) return firing;
  const going = new Set(told);
  const lastTold = new Map<string, number>();
  for (const event of told) {
    lastTold.set(event.key, Math.max(lastTold.get(event.key) ?? event.at, event.at));
  }
  const ended = new Set(
    group.held
      .filter(
        (event) =>
          event.status === 'resolved' &&
          !going.has(event) &&
          (lastTold.get(event.key) ?? Number.NEGATIVE_INFINITY) <= event.at,
      )
      .map((event) => event.key),
  );
  return ended.size === 0 ? firing : firing.filter((key) => !ended.has(key));
}

/** The group once its held events went (told, deferred or silenced): its interval goes on. */
export function emptiedOf(group: GroupState): GroupState {
  return {
    labels: group.labels,
    ...(group.lastSentAt === undefined ? {} : { lastSentAt: group.lastSentAt }),
    held: [],
    ...(group.firing === undefined ? {} : { firing: group.firing }),
  };
}

/** The group's firing alerts once `told` went out; undefined when it cannot be known. */
export function stillFiring(
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
 * A channel's aggregation groups (Alertmanager's, keyed by `group.by`), by group key: what
 * each holds, when it is due, which of its alerts fire. `byKey` is the channel's state's
 * `groups`, kept here while a step runs.
 */
export class ChannelGroups {
  readonly byKey: Map<string, GroupState>;

  constructor(
    readonly channel: ChannelConfig,
    groups: Readonly<Record<string, GroupState>>,
  ) {
    this.byKey = new Map(Object.entries(groups));
  }

  /**
   * Holds a step's events in their groups while the channel is in its active hours (`route`):
   * a new group is due after `wait`, then at most once an `interval`; the first firing of a
   * critical alert brings its group's message forward to its `wait` and pages past the cap
   * (contract 6.1 rule 2). An event of a firing still deferred joins `deferred` (`holds`).
   */
  hold(events: readonly HeldEvent[], deferred: DeferredFirings, nowMs: number): void {
    const { channel } = this;
    // The held lists this call made, appended in place: a copy per event made a step of many
    // events for one group (the pollers' backlog after a notifier outage) quadratic.
    const owned = new Map<string, HeldEvent[]>();
    const homes = this.#homes();
    for (const event of events) {
      const home = this.#home(event, homes);
      const holds = this.holds(event, deferred, home.key);
      if (holds === false) {
        this.over(event);
        continue;
      }
      if (holds === 'deferred') {
        deferred.push(event);
        continue;
      }
      const { key, labels } = home;
      homes.set(homeOf(event), key);
      const group = this.byKey.get(key);
      const page = isPage(event);
      const soon = nowMs + channel.group.waitMs;
      if (group !== undefined && group.held.length > 0) {
        const mine = owned.get(key);
        const held = mine ?? [...group.held];
        if (mine === undefined) owned.set(key, held);
        held.push(event);
        const forward = page && (group.dueAt ?? soon) > soon;
        if (mine === undefined || forward || (page && group.pages !== true)) {
          this.byKey.set(key, {
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
      this.byKey.set(key, {
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
  holds(
    event: HeldEvent,
    deferred: DeferredFirings,
    group: string,
  ): 'deferred' | 'group' | boolean {
    if (deferred.has(event)) return 'deferred';
    if (event.untold !== true) return true;
    const firing = firingOf(event);
    const same = (other: HeldEvent) =>
      other.key === event.key && (firing === undefined || firingOf(other) === firing);
    return this.byKey.get(group)?.held.some(same) === true ? 'group' : false;
  }

  /** The group each firing with held events is held in, by alert and firing (`homeOf`). */
  #homes(): Map<string, string> {
    const homes = new Map<string, string>();
    for (const [key, group] of this.byKey) {
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
    const group = held === undefined ? undefined : this.byKey.get(held);
    return held !== undefined && group !== undefined
      ? { key: held, labels: group.labels }
      : groupOf(this.channel, event);
  }

  /**
   * A firing told here ended untold: no group counts it firing any more (its rule's severity,
   * a `group.by` value, may have changed since), so once none is, the group's next alert
   * starts it afresh (contract 6.1 rule 2).
   */
  over(end: HeldEvent): void {
    for (const [key, group] of this.byKey) {
      if (group.firing?.includes(end.key) !== true) continue;
      this.byKey.set(key, { ...group, firing: group.firing.filter((name) => name !== end.key) });
    }
  }

  /**
   * Resolutions routed to a channel end their alerts in all its groups but their own: an
   * alert's rule's severity (a `group.by` value) may have changed since its firing was told in
   * another group (a rules file deployed while it fired), and that group must not think it
   * still fires. Its own group ends it when the resolution is told (`stillFiring`).
   */
  endElsewhere(events: readonly HeldEvent[]): void {
    // One group is enough to hold the alert elsewhere: the resolution's own group may not
    // exist yet (its new severity starts one).
    if (this.byKey.size === 0) return;
    let index: Map<string, string[]> | undefined;
    for (const event of events) {
      if (event.status !== 'resolved') continue;
      if (index === undefined) {
        index = new Map();
        for (const [key, group] of this.byKey) {
          for (const alert of group.firing ?? []) {
            const list = index.get(alert);
            if (list) list.push(key);
            else index.set(alert, [key]);
          }
        }
      }
      const own = groupOf(this.channel, event).key;
      for (const key of index.get(event.key) ?? []) {
        const group = this.byKey.get(key);
        if (key === own || group?.firing === undefined) continue;
        this.byKey.set(key, {
          ...group,
          firing: group.firing.filter((alert) => alert !== event.key),
        });
      }
    }
  }

  /**
   * The digest told these events: their groups know which of their alerts fire (a group that
   * only the digest told is kept for that, with nothing held and no interval running).
   */
  noteTold(events: readonly HeldEvent[]): void {
    const byGroup = new Map<string, { labels: Record<string, string>; events: HeldEvent[] }>();
    for (const event of events) {
      const { key, labels } = groupOf(this.channel, event);
      const entry = byGroup.get(key);
      if (entry) entry.events.push(event);
      else byGroup.set(key, { labels, events: [event] });
    }
    for (const [key, { labels, events: told }] of byGroup) {
      const group = this.byKey.get(key);
      const firing = stillFiring(group === undefined ? [] : group.firing, told);
      if (group === undefined) {
        if (firing !== undefined && firing.length > 0) {
          this.byKey.set(key, { labels, held: [], firing });
        }
        continue;
      }
      const { firing: _before, ...rest } = group;
      this.byKey.set(key, { ...rest, ...(firing ? { firing } : {}) });
    }
  }
}
