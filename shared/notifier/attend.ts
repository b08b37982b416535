import { ACK_CALL } from '../engine/ack-calls';
import type { Notification } from '../engine/types';
import type { Config, Severity } from '../types/config';
import { ACK_ANSWER_EVERY_MS, takeAckCall } from './ack-call';
import type { Direct, Routed } from './direct';
import { escalationDueAt } from './escalate';
import { FollowedAlerts, overLimit } from './follow';
import { heldEvent } from './group';
import { keptNotes, note, noteHeard } from './noted';
import { keptSilences, withPeople } from './people';
import { silenceFor } from './silence';
import {
  ackHolds,
  alertAsEvent,
  isFirstFiring,
  isRepeat,
  kept,
  needsEvent,
  reachedChannels,
  retire,
  ruleOf,
  settle,
  stale,
  toldByEscalation,
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
 * unless it displaces a less severe alert. Pure: time is `nowMs`.
 */
export class Attendant {
  /** Events that go on to the channels' stages, in order (untold firings whose silence ended first). */
  readonly routed: Routed[] = [];
  /** This step's tellings of firings a silence kept untold, by alert key. */
  readonly #unsilenced = new Map<string, Routed[]>();
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
    // As it is now: at the severity of its latest firing event in this step, if any (a deploy
    // may have changed its rule's).
    const latest = new Map<string, Severity>();
    for (const event of events) {
      if (event.status === 'firing') latest.set(event.key, event.severity);
    }
    for (const [key, tracked] of this.alerts) {
      const { event } = tracked;
      if (tracked.untoldSince === undefined || event === undefined) continue;
      // Nothing is told of an alert a silence matches as it is now.
      const severity = latest.get(key) ?? tracked.severity;
      if (silenceFor(this.silences, { ...tracked, severity }, this.nowMs) !== undefined) continue;
      const keptOn = (name: string) => tracked.untoldEvents?.[name] ?? event;
      const channels = tracked.untoldOn ?? tracked.channels;
      const ended = channels.filter(
        (name) => silenceFor(this.silences, keptOn(name), this.nowMs) === undefined,
      );
      if (ended.length === 0) continue;
      this.alerts.set(key, stillUntold(tracked, ended));
      // On a channel never told this firing, its first telling: its page there (contract 6.1
      // rule 2), as its first firing would have been; on one that heard it (an escalation's
      // message told it), a telling again, even of the first firing's own event.
      const escalated = toldByEscalation(tracked);
      const routed: Routed[] = ended.map((name) => {
        const { firstTold: _first, again: _again, escalation: _step, ...told } = keptOn(name);
        const fresh = neverHeard(tracked, name) && !escalated.has(name);
        return {
          event: fresh ? { ...told, firstTold: true as const } : { ...told, again: true as const },
          channels: [name],
        };
      });
      this.#unsilenced.set(key, routed);
      for (const item of routed) this.routed.push(item);
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
      if (this.#silenceHolds(key, tracked)) continue;
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

  /**
   * A silence still holds what it kept untold of the alert on some channel, as that event was,
   * and no later event of it goes there in this step.
   */
  #silenceHolds(key: string, tracked: TrackedAlert): boolean {
    const { event } = tracked;
    if (tracked.untoldSince === undefined || event === undefined) return false;
    return (tracked.untoldOn ?? tracked.channels).some((name) => {
      const kept = tracked.untoldEvents?.[name] ?? event;
      if (silenceFor(this.silences, kept, this.nowMs) === undefined) return false;
      return !this.routed.some(
        (item) => item.event.key === key && item.event.at > kept.at && item.channels.includes(name),
      );
    });
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
      this.alerts.delete(event.key);
      this.#notes.delete(event.key);
      // Over by the time the notifier saw its silence end (the end came in the same step): a
      // silence's end tells only an alert still firing (contract section 6), so not the firing,
      // unless a repeat of it in this step (the backlog of an outage) tells it all the same:
      // then it stays, the alert's first telling, its page (rule 2). Once: a later resolution
      // of the alert in this step (it fired again and ended again) ends a new firing, which
      // is told (rule 1).
      const unsilenced = this.#unsilenced.get(event.key) ?? [];
      this.#unsilenced.delete(event.key);
      const last = unsilenced.at(-1);
      const after = last === undefined ? -1 : this.routed.indexOf(last);
      const later = this.routed.slice(after + 1).filter((item) => item.event.key === event.key);
      // The channels the silence kept the firing from, and which now never hear it.
      const kept = new Set<string>();
      for (const item of unsilenced) {
        // A repeat of it goes there in this step (a channel its rule notifies, not one only an
        // escalation reached). Where the firing was heard before, that repeat tells it; the
        // telling again, of an event from before a deploy perhaps, would only add its old
        // severity.
        const repeated = item.channels.some((name) =>
          later.some((other) => other.channels.includes(name)),
        );
        if (repeated && item.event.again !== true) continue;
        this.routed.splice(this.routed.indexOf(item), 1);
        if (!repeated) for (const name of item.channels) kept.add(name);
      }
      // Untold (`resolved: false`): only a channel still holding the firing tells it, resolved.
      if (notification.untold === true) {
        this.routed.push({ event, channels: notification.channels });
        return;
      }
      // Whoever heard the firing hears the end (contract 6.1 rule 6): escalation's channels too.
      // Not a channel only its escalation reached, where a silence kept that until now: it
      // never heard the firing (its own channels are told the end all the same, rule 3).
      const reached = tracked === undefined ? new Set<string>() : reachedChannels(tracked);
      for (const name of [...kept, ...(tracked?.escalationKept ?? [])]) {
        if (!notification.channels.includes(name)) reached.delete(name);
      }
      const channels = [...new Set([...notification.channels, ...reached])];
      // Channels its firing never went to (the rule's notify changed meanwhile), or never heard
      // (a silence kept it untold until now): told firedAt (contract 6.1 rule 3). A followed
      // alert knows where its firing and repeats went; the engine says it of others. A channel
      // an escalation step told heard it (a channel renamed into the rule's notify after its
      // firing went, which the step reached under its new name).
      const escalated = tracked === undefined ? new Set<string>() : toldByEscalation(tracked);
      const fresh = new Set(
        tracked === undefined
          ? (notification.newTo ?? [])
          : notification.channels.filter(
              (name) => !reached.has(name) || (neverHeard(tracked, name) && !escalated.has(name)),
            ),
      );
      const heard = channels.filter((name) => !fresh.has(name));
      if (heard.length > 0) this.routed.push({ event, channels: heard });
      if (fresh.size > 0)
        this.routed.push({ event: { ...event, unheard: true }, channels: [...fresh] });
      return;
    }
    if (tracked !== undefined && isRepeat(config, tracked, event)) {
      const muted = tracked.ack !== undefined && ackHolds(tracked.ack, nowMs);
      // A repeat the rule now sends to more channels (its notify changed): they hear it too.
      const more = notification.channels.filter((name) => !tracked.channels.includes(name));
      // While a silence keeps a firing untold, what it kept on each channel stays in
      // `untoldEvents`, which its end tells (`#tellUnsilenced`), as that event was: a repeat the
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
      this.#unfollowed.push({
        key: event.key,
        rule: event.rule,
        severity: event.severity,
        reason: 'full',
      });
    }
    if (wanted && !followed) {
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
   * A repeat that goes in the step a silence ended, to a channel that heard the firing before,
   * tells the alert there as it is now: the telling again of what the silence kept (from before
   * a deploy, perhaps) goes no more, or its old severity would ride with it (and owe an SMS the
   * alert no longer wants). A firing never heard there keeps its page (rule 2).
   */
  #toldByRepeat(key: string, channels: readonly string[]): void {
    const unsilenced = this.#unsilenced.get(key);
    if (unsilenced === undefined) return;
    const left = unsilenced.filter((item) => {
      const told =
        item.event.again === true && item.channels.every((name) => channels.includes(name));
      if (told) this.routed.splice(this.routed.indexOf(item), 1);
      return !told;
    });
    if (left.length > 0) this.#unsilenced.set(key, left);
    else this.#unsilenced.delete(key);
  }

  #follow(
    event: HeldEvent,
    channels: readonly string[],
    untold: Pick<TrackedAlert, 'untoldSince' | 'untoldOn' | 'untoldEvents' | 'heardOn'>,
  ): void {
    const escalate = ruleOf(this.config, event.rule)?.escalate ?? [];
    const started: TrackedAlert = {
      rule: event.rule,
      source: event.source,
      severity: event.severity,
      labels: event.labels,
      channels,
      firedAt: event.firedAt ?? event.at,
      lastFiringAt: event.at,
      ...(escalate.length > 0 ? { escalate, escalated: 0 } : {}),
      event: kept(event),
      ...untold,
      ...((untold.heardOn?.length ?? 0) > 0 ? {} : { unheard: true as const }),
    };
    // A silence's keeping of a rule a deploy removed since (an outage's backlog): followed as
    // retired, so it waits for the resolution the engine tells of it (rule 8).
    this.alerts.set(event.key, settle(retire(this.config, started, this.nowMs)));
  }

  /**
   * A channel's messages of this step told these events: an alert's own channel told its
   * firing, so its escalation counts from now (contract 6.1 rule 4).
   */
  heard(channel: string, events: readonly HeldEvent[]): void {
    for (const event of events) {
      if (event.status !== 'firing') continue;
      let tracked = this.alerts.get(event.key);
      if (tracked === undefined && isFirstFiring(event)) noteHeard(this.#notes, event.key, channel);
      if (tracked?.escalationKept?.includes(channel) === true) {
        // Told here now: it heard the firing after all.
        const { escalationKept, ...rest } = tracked;
        const left = escalationKept.filter((name) => name !== channel);
        tracked = { ...rest, ...(left.length > 0 ? { escalationKept: left } : {}) };
        this.alerts.set(event.key, tracked);
      }
      if (tracked === undefined || !tracked.channels.includes(channel)) continue;
      if (event.firedAt !== undefined && event.firedAt !== tracked.firedAt) continue;
      const keptHere = tracked.untoldEvents?.[channel] ?? tracked.event;
      if (tracked.untoldSince !== undefined && event.at > (keptHere?.at ?? event.at)) {
        // A silence kept its firing from this channel, which now told a later repeat of it the
        // silence does not match (a deploy changed its rule's severity): it heard the alert.
        tracked = stillUntold(tracked, [channel]);
        this.alerts.set(event.key, tracked);
      }
      const heardOn = tracked.heardOn ?? [];
      if (tracked.unheard !== true && heardOn.includes(channel)) continue;
      const { unheard: _unheard, ...rest } = tracked;
      this.alerts.set(event.key, {
        ...rest,
        ...(tracked.unheard === true ? { heardAt: this.nowMs } : {}),
        heardOn: heardOn.includes(channel) ? heardOn : [...heardOn, channel],
      });
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
      // An escalation its hours deferred here, kept by the silence: this channel was not told.
      const tracked = this.alerts.get(event.key);
      // Of its current firing: a deferred escalation of an earlier one (it resolved and fired
      // again meanwhile) says nothing of what this firing's channels heard.
      const current = event.firedAt === undefined || event.firedAt === tracked?.firedAt;
      if (event.escalation === true && tracked !== undefined && current) {
        const before = tracked.escalationKept ?? [];
        if (!before.includes(channel)) {
          this.alerts.set(event.key, { ...tracked, escalationKept: [...before, channel] });
        }
      }
    }
    for (const [key, event] of last) {
      if (event.status !== 'firing') continue;
      const tracked = this.alerts.get(key);
      // A repeat kept from a channel that heard the firing is told there at the silence's end
      // too: the alert was still firing while the silence held (contract section 6).
      if (tracked === undefined) {
        if (!first.has(key) || over.has(firing(event))) continue;
        if (this.#room(key, event.severity)) {
          // Its channels are its rule's (a resolution to one of them is to a channel its firing
          // went to); the silence kept it from this one so far.
          const channels = ruleOf(this.config, event.rule)?.notify ?? [channel];
          // Those of them a message told it before it was followed heard it (rules 2, 3).
          const heardOn = this.#notes.get(key)?.heardOn;
          this.#follow(event, channels, {
            untoldSince: this.nowMs,
            untoldOn: [channel],
            untoldEvents: { [channel]: kept(event) },
            ...(heardOn === undefined ? {} : { heardOn }),
          });
        } else {
          this.#unfollowed.push({
            key,
            rule: event.rule,
            severity: event.severity,
            reason: 'full',
          });
        }
        continue;
      }
      if (event.firedAt !== undefined && event.firedAt !== tracked.firedAt) continue;
      const untoldOn =
        tracked.untoldSince !== undefined && tracked.untoldOn === undefined
          ? undefined
          : [...new Set([...(tracked.untoldOn ?? []), channel])];
      // Its latest firing event, as the engine told it (escalation and a lapsing
      // acknowledgement tell it): not a deferred escalation's or a telling's copy of it.
      const { firstTold: _first, again: _again, escalation: _step, ...plain } = event;
      const newer = tracked.event !== undefined && tracked.event.at >= plain.at;
      this.alerts.set(key, {
        ...tracked,
        ...(newer ? {} : { event: kept(plain) }),
        untoldSince: tracked.untoldSince ?? this.nowMs,
        ...(untoldOn === undefined ? {} : { untoldOn }),
        untoldEvents: { ...tracked.untoldEvents, [channel]: kept(event) },
      });
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

  /** The next escalation step or silence end that has work. */
  #dueAtMs(): number | undefined {
    const due: number[] = [];
    for (const tracked of this.alerts.values()) {
      const untold = tracked.untoldSince !== undefined;
      // A silence holding it as it is now holds everything of it back until it ends.
      const now = silenceFor(this.silences, tracked, this.nowMs);
      if (now !== undefined && (untold || tracked.escalate)) {
        due.push(now.endsAt);
        continue;
      }
      // The silences holding what they kept untold, as it was.
      const kept = untold ? [tracked.event, ...Object.values(tracked.untoldEvents ?? {})] : [];
      for (const item of kept) {
        const silence =
          item === undefined ? undefined : silenceFor(this.silences, item, this.nowMs);
        if (silence !== undefined) due.push(silence.endsAt);
      }
      const step = escalationDueAt(tracked);
      if (step !== undefined) due.push(step);
      // Past and still there, it waits for a silence's end (pushed above).
      const until = tracked.ack?.until;
      if (until !== undefined && until > this.nowMs) due.push(until);
    }
    return due.length === 0 ? undefined : due.reduce((a, b) => Math.min(a, b));
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
      dueAtMs: this.#dueAtMs(),
      unfollowed: this.#unfollowed,
    };
  }
}

/** The alert once these channels are no longer kept untold (told, or told now). */
function stillUntold(tracked: TrackedAlert, told: readonly string[]): TrackedAlert {
  const { untoldSince, untoldOn: _on, untoldEvents, ...rest } = tracked;
  const left = (tracked.untoldOn ?? tracked.channels).filter((name) => !told.includes(name));
  if (left.length === 0 || untoldSince === undefined) return settle(rest);
  const events = Object.entries(untoldEvents ?? {}).filter(([name]) => left.includes(name));
  return {
    ...rest,
    untoldSince,
    untoldOn: left,
    ...(events.length === 0 ? {} : { untoldEvents: Object.fromEntries(events) }),
  };
}

/** No message told the alert's firing to this channel of its own (a silence kept it). */
function neverHeard(tracked: TrackedAlert, channel: string): boolean {
  if (tracked.heardOn === undefined) return tracked.unheard === true;
  return !tracked.heardOn.includes(channel);
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
