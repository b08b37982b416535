import { ACK_CALL } from '../engine/ack-calls';
import type { Notification } from '../engine/types';
import type { Config, RuleConfig, Severity } from '../types/config';
import { displacedBy, MAX_FOLLOWED_ALERTS, overLimit } from './follow';
import { heldEvent } from './group';
import { keptSilences, withPeople } from './people';
import { silenceFor } from './silence';
import type {
  HeldEvent,
  MutedEvent,
  NotifierState,
  Silence,
  TrackedAlert,
  UnfollowedAlert,
} from './types';

/** Calls to `ack.did` taken are remembered this long (the pollers remember them an hour too). */
const ACK_CALL_RETENTION_MS = 2 * 3_600_000;
/** A repeat comes at most a poll after `repeat`; past this much more it was a new firing. */
const REPEAT_SLACK_MS = 60_000;

/** An event to route to some of its channels as usual (grouping, active hours, the cap). */
export interface Routed {
  readonly event: HeldEvent;
  readonly channels: readonly string[];
}

/** A message that skips grouping: an escalation step, or an acknowledgement's confirmation. */
export interface Direct {
  readonly reason: 'escalation' | 'ack';
  readonly groupKey: string;
  readonly title: string;
  readonly events: readonly HeldEvent[];
  /** Event ids this message is the first to tell its channel (an ack call's own event). */
  readonly delivers: readonly string[];
}

/** What the people's side decided in one step, before grouping. */
export interface Attention {
  /** Events that go on to grouping, in order (untold firings whose silence ended first). */
  readonly routed: readonly Routed[];
  /** By channel. */
  readonly direct: ReadonlyMap<string, Direct[]>;
  readonly muted: readonly MutedEvent[];
  /** The state with silences, followed alerts and ack calls as this step leaves them. */
  readonly state: NotifierState;
  readonly dueAtMs: number | undefined;
  /** Firings not followed, and followed alerts displaced (`follow.ts`). */
  readonly unfollowed: readonly UnfollowedAlert[];
}

const BUILT_IN_RULES = new Set(['source_unavailable', 'too_many_alerts']);

function ruleOf(config: Config, name: string): RuleConfig | undefined {
  return config.rules.find((rule) => rule.name === name);
}

/** An acknowledgement changes something only for an alert that repeats or escalates. */
function worthFollowing(rule: RuleConfig | undefined): boolean {
  return rule !== undefined && (rule.repeatMs !== undefined || (rule.escalate?.length ?? 0) > 0);
}

/**
 * Whether a firing event of an alert already followed is a repeat of the same firing. A rule
 * that tells its resolutions sends a resolution before any new firing; one that does not
 * (`resolved: false`) repeats within `repeat` and a poll, so a firing later than that is new.
 */
function isRepeat(config: Config, tracked: TrackedAlert, event: HeldEvent): boolean {
  // The engine says which firing an event belongs to: a repeat carries its firing's time.
  if (event.firedAt !== undefined) return event.firedAt === tracked.firedAt;
  const atMs = event.at;
  const rule = ruleOf(config, tracked.rule);
  if (rule === undefined) return BUILT_IN_RULES.has(tracked.rule);
  if (rule.resolved) return true;
  if (rule.repeatMs === undefined) return false;
  return atMs <= tracked.lastFiringAt + rule.repeatMs + pollSlack(config, rule);
}

function pollSlack(config: Config, rule: RuleConfig): number {
  return config.sources[rule.source].everyMs + REPEAT_SLACK_MS;
}

/**
 * A followed alert that can be forgotten without its resolution: its rule is gone, or it does
 * not tell resolutions and its next repeat is overdue (it stopped holding).
 */
function stale(config: Config, tracked: TrackedAlert, nowMs: number): boolean {
  const rule = ruleOf(config, tracked.rule);
  if (rule === undefined) return !BUILT_IN_RULES.has(tracked.rule);
  if (rule.resolved) return false;
  if (rule.repeatMs === undefined) return tracked.untoldSince === undefined;
  return nowMs > tracked.lastFiringAt + rule.repeatMs + pollSlack(config, rule);
}

/** The event kept with a followed alert: what a later message needs, without the email text. */
function kept(event: HeldEvent): HeldEvent {
  const { text: _text, ...rest } = event;
  return rest;
}

/** Whether a followed alert still needs its event: an untold firing, or a step to come. */
function needsEvent(tracked: TrackedAlert): boolean {
  return (
    tracked.untoldSince !== undefined ||
    (tracked.ack === undefined && (tracked.escalated ?? 0) < (tracked.escalate?.length ?? 0))
  );
}

function settle(tracked: TrackedAlert): TrackedAlert {
  if (needsEvent(tracked) || tracked.event === undefined) return tracked;
  const { event: _event, ...rest } = tracked;
  return rest;
}

/** The alert as its own lines in an ack message: its latest firing. */
function alertAsEvent(key: string, tracked: TrackedAlert): HeldEvent {
  return {
    id: `${key}|firing|${new Date(tracked.lastFiringAt).toISOString()}`,
    at: tracked.lastFiringAt,
    source: tracked.source,
    rule: tracked.rule,
    key,
    status: 'firing',
    severity: tracked.severity,
    labels: tracked.labels,
    value: tracked.event?.value ?? null,
    sms: tracked.event?.sms ?? '',
    subject: tracked.event?.subject ?? '',
  };
}

/** The channels an alert has reached: its own, and those its escalation has gone to. */
function reachedChannels(tracked: TrackedAlert): Set<string> {
  const out = new Set(tracked.channels);
  (tracked.escalate ?? []).slice(0, tracked.escalated ?? 0).forEach((step) => {
    for (const name of step.notify) out.add(name);
  });
  return out;
}

class Work {
  readonly routed: Routed[] = [];
  readonly direct = new Map<string, Direct[]>();
  readonly muted: MutedEvent[] = [];
  readonly alerts: Map<string, TrackedAlert>;
  readonly ackCalls: Record<string, number>;
  readonly unfollowed: UnfollowedAlert[] = [];

  constructor(
    readonly config: Config,
    readonly silences: readonly Silence[],
    state: NotifierState,
    readonly nowMs: number,
    readonly followAtMost: number,
  ) {
    this.alerts = new Map(Object.entries(state.alerts ?? {}));
    this.ackCalls = {};
    for (const [callId, at] of Object.entries(state.ackCalls ?? {})) {
      if (at > nowMs - ACK_CALL_RETENTION_MS) this.ackCalls[callId] = at;
    }
  }

  addDirect(channel: string, message: Direct): void {
    if (this.config.channels[channel] === undefined) return;
    const list = this.direct.get(channel);
    if (list) list.push(message);
    else this.direct.set(channel, [message]);
  }

  mute(event: HeldEvent, reason: MutedEvent['reason'], by: string): void {
    this.muted.push({ id: event.id, key: event.key, reason, by });
  }

  /** Silences that ended (or were expired) tell the firings they kept untold. */
  tellUnsilenced(): void {
    for (const [key, tracked] of this.alerts) {
      if (tracked.untoldSince === undefined || tracked.event === undefined) continue;
      if (silenceFor(this.silences, tracked, this.nowMs) !== undefined) continue;
      const { untoldSince: _since, ...rest } = tracked;
      this.alerts.set(key, settle(rest));
      this.routed.push({ event: tracked.event, channels: tracked.channels });
    }
  }

  /** A call to `ack.did` from a channel's number: that channel's firing alerts, acknowledged. */
  takeAckCall(notification: Notification, event: HeldEvent): void {
    const callId = event.labels.call_id ?? event.key;
    if (Object.hasOwn(this.ackCalls, callId)) return;
    this.ackCalls[callId] = this.nowMs;
    const caller = event.labels.from ?? 'unknown';
    for (const channel of notification.channels) {
      const acked: HeldEvent[] = [];
      for (const [key, tracked] of this.alerts) {
        if (tracked.ack !== undefined || !reachedChannels(tracked).has(channel)) continue;
        this.alerts.set(
          key,
          settle({ ...tracked, ack: { by: caller, at: this.nowMs, via: 'call' } }),
        );
        acked.push(alertAsEvent(key, tracked));
      }
      this.addDirect(channel, {
        reason: 'ack',
        groupKey: `ack|${callId}`,
        title: `ACK by ${caller}`,
        events: acked,
        delivers: [event.id],
      });
    }
  }

  take(notification: Notification): void {
    const event = heldEvent(notification);
    if (notification.rule === ACK_CALL) {
      this.takeAckCall(notification, event);
      return;
    }
    const { config, nowMs } = this;
    const silence = silenceFor(this.silences, event, nowMs);
    const tracked = this.alerts.get(event.key);
    if (event.status === 'resolved') {
      this.alerts.delete(event.key);
      if (silence !== undefined) this.mute(event, 'silenced', silence.id);
      else this.routed.push({ event, channels: notification.channels });
      return;
    }
    if (tracked !== undefined && isRepeat(config, tracked, event)) {
      const next: TrackedAlert = {
        ...tracked,
        lastFiringAt: event.at,
        ...(needsEvent(tracked) ? { event: kept(event) } : {}),
      };
      this.alerts.set(event.key, next);
      if (tracked.ack !== undefined) this.mute(event, 'acknowledged', tracked.ack.by);
      else if (silence !== undefined) this.mute(event, 'silenced', silence.id);
      else if (tracked.untoldSince !== undefined) {
        // Told now, as itself: the silence that kept the firing untold has ended.
        const { untoldSince: _since, ...rest } = next;
        this.alerts.set(event.key, settle(rest));
        this.routed.push({ event, channels: notification.channels });
      } else this.routed.push({ event, channels: notification.channels });
      return;
    }
    const rule = ruleOf(config, event.rule);
    const wanted = worthFollowing(rule) || silence !== undefined;
    const followed = wanted && this.room(event.key, event.severity);
    if (wanted && !followed) {
      this.unfollowed.push({
        key: event.key,
        rule: event.rule,
        severity: event.severity,
        reason: 'full',
      });
    }
    if (silence !== undefined) this.mute(event, 'silenced', silence.id);
    else if (wanted && !followed) {
      this.routed.push({
        event: { ...event, unfollowed: this.followAtMost },
        channels: notification.channels,
      });
    } else this.routed.push({ event, channels: notification.channels });
    if (!followed) {
      this.alerts.delete(event.key);
      return;
    }
    const escalate = rule?.escalate ?? [];
    const started: TrackedAlert = {
      rule: event.rule,
      source: event.source,
      severity: event.severity,
      labels: event.labels,
      channels: notification.channels,
      firedAt: event.firedAt ?? event.at,
      lastFiringAt: event.at,
      ...(escalate.length > 0 ? { escalate, escalated: 0 } : {}),
      event: kept(event),
      ...(silence === undefined ? {} : { untoldSince: event.at }),
    };
    this.alerts.set(event.key, settle(started));
  }

  /** Escalation steps due now, in order; one message per channel and step. */
  escalate(): void {
    const batches = new Map<string, { channel: string; step: number; events: HeldEvent[] }>();
    for (const [key, tracked] of this.alerts) {
      const steps = tracked.escalate ?? [];
      if (tracked.ack !== undefined || tracked.event === undefined) continue;
      if (tracked.untoldSince !== undefined) continue;
      if (silenceFor(this.silences, tracked, this.nowMs) !== undefined) continue;
      let done = tracked.escalated ?? 0;
      for (let step = steps[done]; step !== undefined; step = steps[done]) {
        if (tracked.firedAt + step.afterMs > this.nowMs) break;
        for (const channel of step.notify) {
          const id = `${channel}\u0000${done}`;
          const batch = batches.get(id) ?? { channel, step: done, events: [] };
          batch.events.push(tracked.event);
          batches.set(id, batch);
        }
        done += 1;
      }
      if (done !== (tracked.escalated ?? 0)) {
        this.alerts.set(key, settle({ ...tracked, escalated: done }));
      }
    }
    for (const { channel, step, events } of batches.values()) {
      // A reduce, not Math.min(...): a step may escalate more alerts than a call takes arguments.
      const afterMs = events.reduce(
        (least, event) =>
          Math.min(
            least,
            this.alerts.get(event.key)?.escalate?.[step]?.afterMs ?? Number.POSITIVE_INFINITY,
          ),
        Number.POSITIVE_INFINITY,
      );
      this.addDirect(channel, {
        reason: 'escalation',
        groupKey: `escalation|${step}`,
        title: Number.isFinite(afterMs) ? formatWait(afterMs) : '',
        events,
        delivers: [],
      });
    }
  }

  /**
   * Whether a new firing of `key` may be followed: it is followed already (a new firing takes
   * its place), there is room, or it displaces a less severe alert (`displacedBy`).
   */
  room(key: string, severity: Severity): boolean {
    if (this.alerts.has(key) || this.alerts.size < this.followAtMost) return true;
    const displaced = displacedBy(this.alerts, severity);
    if (displaced === undefined) return false;
    this.unfollow(displaced);
    return true;
  }

  unfollow(key: string): void {
    const tracked = this.alerts.get(key);
    if (tracked === undefined) return;
    this.alerts.delete(key);
    this.unfollowed.push({
      key,
      rule: tracked.rule,
      severity: tracked.severity,
      reason: 'displaced',
    });
  }

  /** A state kept before the limit (or under a larger one) is brought within it. */
  keepWithinLimit(): void {
    for (const key of overLimit(this.alerts, this.followAtMost)) this.unfollow(key);
  }

  forgetStale(): void {
    for (const [key, tracked] of this.alerts) {
      if (stale(this.config, tracked, this.nowMs)) this.alerts.delete(key);
    }
  }

  /** The next escalation step or silence end that has work. */
  dueAtMs(): number | undefined {
    const due: number[] = [];
    for (const tracked of this.alerts.values()) {
      const silence = silenceFor(this.silences, tracked, this.nowMs);
      if (silence !== undefined && (tracked.untoldSince !== undefined || tracked.escalate)) {
        due.push(silence.endsAt);
        continue;
      }
      const step = tracked.escalate?.[tracked.escalated ?? 0];
      if (step !== undefined && tracked.ack === undefined) due.push(tracked.firedAt + step.afterMs);
    }
    return due.length === 0 ? undefined : due.reduce((a, b) => Math.min(a, b));
  }
}

function formatWait(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
}

/**
 * The people's side of a notifier step (contract section 6), before grouping: Alertmanager's
 * silence stage and what its authors left to PagerDuty. In order: firings a silence kept untold
 * are told once it has ended; each event then is an ack call (acknowledges the caller's
 * channels' firing alerts, confirmed by an `ack` message), a firing or a repeat (recorded as
 * silenced while a silence matches, as acknowledged when a repeat of an acknowledged alert,
 * else routed), or a resolution (routed, unless silenced; the alert is forgotten). Last,
 * escalation steps now due go to their channels. At most `followAtMost` alerts are followed
 * (`follow.ts`): a firing past it is told all the same, marked `unfollowed`, and neither
 * escalates nor can be acknowledged, unless it displaces a less severe alert. Pure.
 */
export function attend(
  config: Config,
  state: NotifierState,
  events: readonly Notification[],
  nowMs: number,
  followAtMost = MAX_FOLLOWED_ALERTS,
): Attention {
  const silences = keptSilences(state.silences ?? [], nowMs);
  const work = new Work(config, silences, state, nowMs, followAtMost);
  work.keepWithinLimit();
  work.tellUnsilenced();
  for (const event of events) work.take(event);
  work.escalate();
  work.forgetStale();
  const alerts = Object.fromEntries(
    [...work.alerts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const counted = countSilenced(silences, work.muted);
  return {
    routed: work.routed,
    direct: work.direct,
    muted: work.muted,
    state: withPeople(state, counted, alerts, work.ackCalls),
    dueAtMs: work.dueAtMs(),
    unfollowed: work.unfollowed,
  };
}

function countSilenced(silences: readonly Silence[], muted: readonly MutedEvent[]): Silence[] {
  const counts = new Map<string, number>();
  for (const item of muted) {
    if (item.reason === 'silenced') counts.set(item.by, (counts.get(item.by) ?? 0) + 1);
  }
  if (counts.size === 0) return [...silences];
  return silences.map((silence) => {
    const more = counts.get(silence.id);
    return more === undefined ? silence : { ...silence, silenced: (silence.silenced ?? 0) + more };
  });
}
