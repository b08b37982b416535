import { ACK_CALL } from '../engine/ack-calls';
import type { Notification } from '../engine/types';
import type { Config, Severity } from '../types/config';
import { ACK_ANSWER_EVERY_MS, takeAckCall } from './ack-call';
import type { Direct, Routed } from './direct';
import { followedDueAt } from './escalate';
import { FollowedAlerts, overLimit } from './follow';
import { heldEvent } from './group';
import { keptNotes, note, noteHeard } from './noted';
import { countSilenced, keptSilences, withPeople } from './people';
import { resolutionRoutes } from './resolution';
import {
  ackHolds,
  alertAsEvent,
  isFirstFiring,
  isRepeat,
  kept,
  needsEvent,
  retire,
  ruleOf,
  settle,
  stale,
  startFollowing,
  worthFollowing,
} from './tracked';
import type {
  FiringNote,
  HeldEvent,
  MutedEvent,
  NotifierState,
  Silence,
  TrackedAlert,
  UnfollowedAlert,
} from './types';
import {
  escalationKeptOn,
  firstKept,
  heardHere,
  overWhenTold,
  severitiesNow,
  silencedOn,
  silenceHolds,
  toldAtSilenceEnd,
  toldByRepeat,
  type Untold,
} from './untold';

/** Calls to `ack.did` taken are remembered this long (the pollers remember them an hour too). */
const ACK_CALL_RETENTION_MS = 2 * 3_600_000;

/** What the people's side leaves once a step is decided. */
export interface Attended {
  readonly muted: readonly MutedEvent[];
  /** The state with silences, followed alerts and ack calls as this step leaves them. */
  readonly state: NotifierState;
  readonly dueAtMs: number | undefined;
  /** Firings not followed, and followed alerts displaced (`follow.ts`). */
  readonly unfollowed: readonly UnfollowedAlert[];
}

/**
 * The people's side of a notifier step (contract section 6): what Alertmanager leaves to
 * PagerDuty, around the channels' own stages. First (`tellUnsilenced`), firings a silence kept
 * untold are told once it has ended. `take` then reads each event: an ack call (acknowledges the caller's
 * channels' firing alerts, confirmed by an `ack` message), a firing or a repeat (recorded as
 * acknowledged when a repeat of an acknowledged alert, else routed), or a resolution (routed
 * to every channel that heard the alert, its rule's and its escalation's; the alert is
 * forgotten). Silences are not applied here but when a message goes (`mute.ts`, contract
 * 6.1 rule 5): once the channels decided, `heard` and `silencedHeld` say what they told and
 * what a silence kept. At most `followAtMost` alerts are followed (`follow.ts`): a firing past
 * it is told all the same, marked `unfollowed`, and neither escalates nor can be acknowledged,
 * unless it displaces a less severe alert. What a silence kept untold, and who heard an
 * alert's firing, is read and written by `untold.ts`; who hears a resolution, `resolution.ts`.
 * Pure: time is `nowMs`.
 */
export class Attendant {
  /** Events that go on to the channels' stages, in order (untold firings whose silence ended first). */
  readonly routed: Routed[] = [];
  /** This step's tellings of firings a silence kept untold, by alert key. */
  readonly #unsilenced = new Map<string, readonly Routed[]>();
  /** Ack confirmations, by channel. */
  readonly direct = new Map<string, Direct[]>();
  readonly muted: MutedEvent[] = [];
  readonly alerts: FollowedAlerts;
  readonly silences: readonly Silence[];
  readonly #ackCalls: Record<string, number> = {};
  /** By caller: when their last call was confirmed (contract 6.1 rule 7). */
  readonly #answered: Record<string, number> = {};
  /** Firing alerts not followed, known until they resolve (`noted.ts`). */
  readonly #notes: Map<string, FiringNote>;
  readonly #unfollowed: UnfollowedAlert[] = [];

  constructor(
    readonly config: Config,
    readonly state: NotifierState,
    readonly nowMs: number,
    readonly followAtMost: number,
  ) {
    this.silences = keptSilences(state.silences ?? [], nowMs);
    this.alerts = new FollowedAlerts(
      Object.entries(state.alerts ?? {}).map(([key, tracked]) => [
        key,
        retire(config, tracked, nowMs),
      ]),
    );
    for (const [callId, at] of Object.entries(state.ackCalls ?? {})) {
      if (at > nowMs - ACK_CALL_RETENTION_MS) this.#ackCalls[callId] = at;
    }
    for (const [caller, at] of Object.entries(state.ackAnswered ?? {})) {
      if (at > nowMs - ACK_ANSWER_EVERY_MS) this.#answered[caller] = at;
    }
    this.#notes = new Map(Object.entries(state.firing ?? {}));
    for (const key of overLimit(this.alerts, this.followAtMost)) this.#unfollow(key);
  }

  #addDirect(channel: string, message: Direct): void {
    if (this.config.channels[channel] === undefined) return;
    const list = this.direct.get(channel);
    if (list) list.push(message);
    else this.direct.set(channel, [message]);
  }

  #mute(event: HeldEvent, reason: MutedEvent['reason'], by: string): void {
    this.muted.push({ id: event.id, key: event.key, reason, by });
  }

  /**
   * Silences that ended (or were expired) tell the firings they kept untold, once no silence
   * matches the alert as it is now, on each channel where none matches the event it kept there
   * either, as that event was (a deploy may have changed the rule's severity since: the
   * alert's later events are matched as they come, in `take`).
   */
  tellUnsilenced(events: readonly Notification[]): void {
    const now = severitiesNow(events);
    for (const [key, tracked] of this.alerts) {
      const told = toldAtSilenceEnd(tracked, now.get(key), this.silences, this.nowMs);
      if (told === undefined) continue;
      this.alerts.set(key, told.tracked);
      this.#unsilenced.set(key, told.routed);
      this.routed.push(...told.routed);
    }
  }

  /**
   * A call to `ack.did` from a channel's number (contract 6.1 rule 7): that channel's firing
   * alerts, acknowledged for `ack.timeout`, confirmed to the caller at most once per 10 minutes
   * (a further call acknowledges all the same and is recorded as unanswered).
   */
  #takeAckCall(notification: Notification, event: HeldEvent): void {
    const callId = event.labels.call_id ?? event.key;
    if (Object.hasOwn(this.#ackCalls, callId)) return;
    this.#ackCalls[callId] = this.nowMs;
    const caller = event.labels.from ?? 'unknown';
    const answered = !Object.hasOwn(this.#answered, caller);
    if (answered) this.#answered[caller] = this.nowMs;
    else this.#mute(event, 'unanswered', caller);
    const call = { callId, caller, eventId: event.id, channels: notification.channels, answered };
    const confirmations = takeAckCall(this.config, this.alerts, this.#notes, call, this.nowMs);
    for (const [channel, message] of confirmations) this.#addDirect(channel, message);
  }

  /**
   * Acknowledgements by call that lapsed (`ack.timeout`, contract 6.1 rule 7): the alert, still
   * firing, is told again to its own channels and its escalation resumes; while a silence holds
   * it, that telling waits for the silence's end, on all its own channels. Runs after the step's
   * events, so a call or a repeat at the very minute it lapses is taken first.
   */
  lapse(): void {
    const { nowMs } = this;
    for (const [key, tracked] of this.alerts) {
      const { ack } = tracked;
      if (ack?.until === undefined || ackHolds(ack, nowMs)) continue;
      // A silence holds it: the acknowledgement lapses when the silence ends (contract 6.1
      // rule 7, section 6), told then to all its own channels as any lapse is; a new
      // acknowledgement meanwhile replaces it.
      if (silenceHolds(key, tracked, this.silences, nowMs, this.routed)) continue;
      const { ack: _lapsed, ...rest } = tracked;
      this.alerts.set(key, settle(rest));
      const base = tracked.event ?? alertAsEvent(key, tracked);
      this.routed.push({
        event: {
          ...base,
          id: `${key}|ack-lapsed|${new Date(nowMs).toISOString()}`,
          at: nowMs,
          firedAt: tracked.firedAt,
          // At its latest firing's severity (a deploy may have changed its rule's).
          severity: tracked.severity,
          ackLapsed: ack.by,
        },
        channels: tracked.channels,
      });
    }
  }

  /** One event decided by the engine, in order. */
  take(notification: Notification): void {
    const event = heldEvent(notification);
    if (notification.rule === ACK_CALL) {
      this.#takeAckCall(notification, event);
      return;
    }
    const { config, nowMs } = this;
    const tracked = this.alerts.get(event.key);
    if (event.status === 'resolved') {
      this.#takeResolution(notification, event, tracked);
      return;
    }
    if (tracked !== undefined && isRepeat(config, tracked, event)) {
      const muted = tracked.ack !== undefined && ackHolds(tracked.ack, nowMs);
      // A repeat the rule now sends to more channels (its notify changed): they hear it too.
      const more = notification.channels.filter((name) => !tracked.channels.includes(name));
      // While a silence keeps a firing untold, what it kept on each channel stays in
      // `untoldEvents`, which its end tells (`tellUnsilenced`), as that event was: a repeat the
      // silence does not match (a deploy changed the rule's severity) is routed as any repeat,
      // and a channel that tells it has heard the alert (`heard`).
      const next: TrackedAlert = {
        ...tracked,
        // Its severity now: a rules file deployed while it fires may have changed its rule's.
        severity: event.severity,
        lastFiringAt: event.at,
        ...(needsEvent(tracked) ? { event: kept(event) } : {}),
        ...(more.length > 0 && !muted ? { channels: [...tracked.channels, ...more] } : {}),
      };
      this.alerts.set(event.key, next);
      if (muted && tracked.ack !== undefined) {
        this.#mute(event, 'acknowledged', tracked.ack.by);
        return;
      }
      this.#toldByRepeat(event.key, notification.channels);
      this.routed.push({ event, channels: notification.channels });
      return;
    }
    const wanted = worthFollowing(ruleOf(config, event.rule));
    const followed = wanted && this.#room(event.key, event.severity);
    if (wanted && !followed) {
      this.#full(event.key, event);
      this.routed.push({
        event: { ...event, unfollowed: this.followAtMost },
        channels: notification.channels,
      });
    } else this.routed.push({ event, channels: notification.channels });
    if (!followed) {
      this.alerts.delete(event.key);
      note(this.#notes, event, notification.channels);
      return;
    }
    this.#notes.delete(event.key);
    this.#follow(event, notification.channels, {});
  }

  /**
   * A resolution: the alert is forgotten, and what a silence kept of its firing is told no more
   * where it is over (`untold.ts` `overWhenTold`); it goes to whoever heard the firing
   * (`resolution.ts` `resolutionRoutes`).
   */
  #takeResolution(
    notification: Notification,
    event: HeldEvent,
    tracked: TrackedAlert | undefined,
  ): void {
    this.alerts.delete(event.key);
    this.#notes.delete(event.key);
    const unsilenced = this.#unsilenced.get(event.key) ?? [];
    this.#unsilenced.delete(event.key);
    const { dropped, kept } = overWhenTold(event.key, unsilenced, this.routed);
    this.#drop(dropped);
    this.routed.push(...resolutionRoutes(notification, event, tracked, kept));
  }

  /** A repeat to these channels tells the alert there as it is now (`untold.ts` `toldByRepeat`). */
  #toldByRepeat(key: string, channels: readonly string[]): void {
    const unsilenced = this.#unsilenced.get(key);
    if (unsilenced === undefined) return;
    const { told, left } = toldByRepeat(unsilenced, channels);
    this.#drop(told);
    if (left.length > 0) this.#unsilenced.set(key, left);
    else this.#unsilenced.delete(key);
  }

  /** These items of `routed` go no more. */
  #drop(items: readonly Routed[]): void {
    for (const item of items) {
      const at = this.routed.indexOf(item);
      if (at >= 0) this.routed.splice(at, 1);
    }
  }

  #follow(event: HeldEvent, channels: readonly string[], untold: Untold): void {
    this.alerts.set(event.key, startFollowing(this.config, event, channels, untold, this.nowMs));
  }

  /**
   * A channel's messages of this step told these events: an alert's own channel told its
   * firing, so its escalation counts from now (contract 6.1 rule 4).
   */
  heard(channel: string, events: readonly HeldEvent[]): void {
    for (const event of events) {
      if (event.status !== 'firing') continue;
      const tracked = this.alerts.get(event.key);
      if (tracked === undefined) {
        if (isFirstFiring(event)) noteHeard(this.#notes, event.key, channel);
        continue;
      }
      const next = heardHere(tracked, channel, event, this.nowMs);
      if (next !== tracked) this.alerts.set(event.key, next);
    }
  }

  /**
   * Events a channel held (grouping, active hours) that a silence matched when they were due
   * (contract 6.1 rule 5): recorded as silenced; a firing still untold there is told on that
   * channel when the silence ends, if it still fires then: not when the channel told its
   * resolution with them (`told`: a deploy changed its rule's severity, which the silence
   * matches, between its firing and its end; it fired and resolved while held, and is over,
   * contract 6.1 rule 3).
   */
  silencedHeld(
    channel: string,
    silenced: readonly { event: HeldEvent; by: Silence }[],
    told: readonly HeldEvent[] = [],
  ): void {
    const firing = (event: HeldEvent) => `${event.key}\u0000${String(event.firedAt)}`;
    const over = new Set(told.filter((event) => event.status === 'resolved').map(firing));
    const last = new Map<string, HeldEvent>();
    const first = new Set<string>();
    for (const { event, by } of silenced) {
      this.#mute(event, 'silenced', by.id);
      last.set(event.key, event);
      if (isFirstFiring(event)) first.add(event.key);
      const tracked = this.alerts.get(event.key);
      if (tracked !== undefined) {
        const next = escalationKeptOn(tracked, channel, event);
        if (next !== tracked) this.alerts.set(event.key, next);
      }
    }
    for (const [key, event] of last) {
      if (event.status !== 'firing') continue;
      const tracked = this.alerts.get(key);
      if (tracked === undefined) {
        if (!first.has(key) || over.has(firing(event))) continue;
        if (this.#room(key, event.severity)) {
          // Its channels are its rule's (a resolution to one of them is to a channel its firing
          // went to); the silence kept it from this one so far.
          const channels = ruleOf(this.config, event.rule)?.notify ?? [channel];
          // Those of them a message told it before it was followed heard it (rules 2, 3).
          const heardOn = this.#notes.get(key)?.heardOn;
          this.#follow(event, channels, firstKept(channel, event, this.nowMs, heardOn));
        } else this.#full(key, event);
        continue;
      }
      // A repeat kept from a channel that heard the firing is told there at the silence's end
      // too: the alert was still firing while the silence held (contract section 6).
      const next = silencedOn(tracked, channel, event, this.nowMs);
      if (next !== tracked) this.alerts.set(key, next);
    }
  }

  /**
   * Whether a new firing of `key` may be followed: it is followed already (a new firing takes
   * its place), there is room, or it displaces a less severe alert
   * (`FollowedAlerts.displacedBy`).
   */
  #room(key: string, severity: Severity): boolean {
    if (this.alerts.has(key) || this.alerts.size < this.followAtMost) return true;
    const displaced = this.alerts.displacedBy(severity);
    if (displaced === undefined) return false;
    this.#unfollow(displaced);
    return true;
  }

  /** A firing not followed: `followAtMost` alerts more severe or as severe are followed. */
  #full(key: string, event: HeldEvent): void {
    this.#unfollowed.push({ key, rule: event.rule, severity: event.severity, reason: 'full' });
  }

  #unfollow(key: string): void {
    const tracked = this.alerts.get(key);
    if (tracked === undefined) return;
    this.alerts.delete(key);
    this.#unfollowed.push({
      key,
      rule: tracked.rule,
      severity: tracked.severity,
      reason: 'displaced',
    });
  }

  /** The people's side as this step leaves it (after the escalation stage). */
  finish(): Attended {
    for (const [key, tracked] of this.alerts) {
      if (stale(this.config, tracked, this.nowMs)) this.alerts.delete(key);
    }
    const alerts = Object.fromEntries(
      [...this.alerts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    const counted = countSilenced(this.silences, this.muted);
    const { ackAnswered: _answered, firing: _firing, ...before } = this.state;
    const firing = keptNotes(this.#notes);
    const people = withPeople(before, counted, alerts, this.#ackCalls);
    return {
      muted: this.muted,
      state: {
        ...people,
        ...(Object.keys(this.#answered).length > 0 ? { ackAnswered: this.#answered } : {}),
        ...(firing === undefined ? {} : { firing }),
      },
      dueAtMs: followedDueAt(this.alerts, this.silences, this.nowMs),
      unfollowed: this.#unfollowed,
    };
  }
}
