import type { Notification } from '../engine/types';
import type { Severity } from '../types/config';
import type { Routed } from './direct';
import { silenceFor } from './silence';
import { kept, settle, toldByEscalation } from './tracked';
import type { HeldEvent, Silence, TrackedAlert } from './types';

// What a silence kept untold, and who heard a followed alert's firing (docs/decisions.md "A
// silence holds what it kept as it was"): a followed alert's `untoldSince`, `untoldOn`,
// `untoldEvents`, `heardOn`, `unheard` and `escalationKept`, as `Attendant` (`attend.ts`) reads
// and changes them in a step. Pure: time is `nowMs`.

/** What a silence kept of a firing not yet followed, as `Attendant` starts following it. */
export type Untold = Pick<TrackedAlert, 'untoldSince' | 'untoldOn' | 'untoldEvents' | 'heardOn'>;

/** This step's tellings of a firing a silence kept untold, and the alert once they go. */
export interface SilenceEndTellings {
  readonly tracked: TrackedAlert;
  readonly routed: readonly Routed[];
}

/**
 * The alerts as they are now, by key: at the severity of their latest firing event in this
 * step, if any (a deploy may have changed their rule's).
 */
export function severitiesNow(events: readonly Notification[]): Map<string, Severity> {
  const latest = new Map<string, Severity>();
  for (const event of events) {
    if (event.status === 'firing') latest.set(event.key, event.severity);
  }
  return latest;
}

/**
 * A silence that ended (or was expired) tells the firing it kept untold, once no silence
 * matches the alert as it is now (`severity`: its latest firing's in this step, if any), on
 * each channel where none matches the event it kept there either, as that event was (a deploy
 * may have changed the rule's severity since: the alert's later events are matched as they
 * come, in `Attendant.take`). Undefined: nothing is told of it.
 */
export function toldAtSilenceEnd(
  tracked: TrackedAlert,
  severity: Severity | undefined,
  silences: readonly Silence[],
  nowMs: number,
): SilenceEndTellings | undefined {
  const { event } = tracked;
  if (tracked.untoldSince === undefined || event === undefined) return undefined;
  // Nothing is told of an alert a silence matches as it is now.
  const now = { ...tracked, severity: severity ?? tracked.severity };
  if (silenceFor(silences, now, nowMs) !== undefined) return undefined;
  const keptOn = (name: string) => tracked.untoldEvents?.[name] ?? event;
  const channels = tracked.untoldOn ?? tracked.channels;
  const ended = channels.filter((name) => silenceFor(silences, keptOn(name), nowMs) === undefined);
  if (ended.length === 0) return undefined;
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
  return { tracked: stillUntold(tracked, ended), routed };
}

/**
 * A silence still holds what it kept untold of the alert `key` on some channel, as that event
 * was, and no later event of it goes there in this step (`routed`).
 */
export function silenceHolds(
  key: string,
  tracked: TrackedAlert,
  silences: readonly Silence[],
  nowMs: number,
  routed: readonly Routed[],
): boolean {
  const { event } = tracked;
  if (tracked.untoldSince === undefined || event === undefined) return false;
  return (tracked.untoldOn ?? tracked.channels).some((name) => {
    const keptHere = tracked.untoldEvents?.[name] ?? event;
    if (silenceFor(silences, keptHere, nowMs) === undefined) return false;
    return !routed.some(
      (item) =>
        item.event.key === key && item.event.at > keptHere.at && item.channels.includes(name),
    );
  });
}

/**
 * Of this step's tellings of what a silence kept of an alert (`unsilenced`), those a repeat
 * going to `channels` tells instead (`told`), and those left. A repeat that goes in the step a
 * silence ended, to a channel that heard the firing before, tells the alert there as it is
 * now: the telling again of what the silence kept (from before a deploy, perhaps) goes no more,
 * or its old severity would ride with it (and owe an SMS the alert no longer wants). A firing
 * never heard there keeps its page (rule 2).
 */
export function toldByRepeat(
  unsilenced: readonly Routed[],
  channels: readonly string[],
): { told: Routed[]; left: Routed[] } {
  const told: Routed[] = [];
  const left: Routed[] = [];
  for (const item of unsilenced) {
    const again =
      item.event.again === true && item.channels.every((name) => channels.includes(name));
    (again ? told : left).push(item);
  }
  return { told, left };
}

/**
 * This step's tellings of what a silence kept of an alert (`unsilenced`, in `routed`) once the
 * alert's resolution comes in the same step: those that go no more (`dropped`), and the
 * channels the silence kept the firing from which now never hear it (`kept`). Over by the time
 * the notifier saw its silence end (the end came in the same step): a silence's end tells only
 * an alert still firing (contract section 6), so not the firing, unless a repeat of it in this
 * step (the backlog of an outage) tells it all the same: then it stays, the alert's first
 * telling, its page (rule 2). Once: a later resolution of the alert in this step (it fired
 * again and ended again) ends a new firing, which is told (rule 1).
 */
export function overWhenTold(
  key: string,
  unsilenced: readonly Routed[],
  routed: readonly Routed[],
): { dropped: Routed[]; kept: Set<string> } {
  const last = unsilenced.at(-1);
  const after = last === undefined ? -1 : routed.indexOf(last);
  const later = routed.slice(after + 1).filter((item) => item.event.key === key);
  const dropped: Routed[] = [];
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
    dropped.push(item);
    if (!repeated) for (const name of item.channels) kept.add(name);
  }
  return { dropped, kept };
}

/**
 * A channel's message told this firing event of a followed alert: a channel an escalation
 * step was deferred to and a silence kept it from heard the firing after all; on one of its own
 * channels, of its current firing, what a silence kept there is told (a later repeat of it the
 * silence does not match: a deploy changed its rule's severity), and the alert is heard there
 * (`heardOn`; the first such message: `heardAt`, escalation counts from now, contract 6.1
 * rule 4). The alert as it is then (the same object when nothing changed).
 */
export function heardHere(
  tracked: TrackedAlert,
  channel: string,
  event: HeldEvent,
  nowMs: number,
): TrackedAlert {
  let out = tracked;
  if (out.escalationKept?.includes(channel) === true) {
    // Told here now: it heard the firing after all.
    const { escalationKept, ...rest } = out;
    const left = escalationKept.filter((name) => name !== channel);
    out = { ...rest, ...(left.length > 0 ? { escalationKept: left } : {}) };
  }
  if (!out.channels.includes(channel)) return out;
  if (event.firedAt !== undefined && event.firedAt !== out.firedAt) return out;
  const keptHere = out.untoldEvents?.[channel] ?? out.event;
  if (out.untoldSince !== undefined && event.at > (keptHere?.at ?? event.at)) {
    // A silence kept its firing from this channel, which now told a later repeat of it the
    // silence does not match (a deploy changed its rule's severity): it heard the alert.
    out = stillUntold(out, [channel]);
  }
  const heardOn = out.heardOn ?? [];
  if (out.unheard !== true && heardOn.includes(channel)) return out;
  const { unheard: _unheard, ...rest } = out;
  return {
    ...rest,
    ...(out.unheard === true ? { heardAt: nowMs } : {}),
    heardOn: heardOn.includes(channel) ? heardOn : [...heardOn, channel],
  };
}

/**
 * A held event of a followed alert that a silence matched on this channel when it was due:
 * the alert as it is then (the same object when nothing changed).
 */
export function escalationKeptOn(
  tracked: TrackedAlert,
  channel: string,
  event: HeldEvent,
): TrackedAlert {
  // An escalation its hours deferred here, kept by the silence: this channel was not told.
  // Of its current firing: a deferred escalation of an earlier one (it resolved and fired
  // again meanwhile) says nothing of what this firing's channels heard.
  const current = event.firedAt === undefined || event.firedAt === tracked.firedAt;
  if (event.escalation !== true || !current) return tracked;
  const before = tracked.escalationKept ?? [];
  if (before.includes(channel)) return tracked;
  return { ...tracked, escalationKept: [...before, channel] };
}

/**
 * A silence kept a followed alert's latest held firing event on this channel (`event`, a firing
 * or a repeat of it, or an escalation's or a telling's copy): told there when the silence ends
 * (a repeat kept from a channel that heard the firing too: the alert was still firing while
 * the silence held, contract section 6), as it was. The alert as it is then (unchanged when
 * `event` is of an earlier firing).
 */
export function silencedOn(
  tracked: TrackedAlert,
  channel: string,
  event: HeldEvent,
  nowMs: number,
): TrackedAlert {
  if (event.firedAt !== undefined && event.firedAt !== tracked.firedAt) return tracked;
  const untoldOn =
    tracked.untoldSince !== undefined && tracked.untoldOn === undefined
      ? undefined
      : [...new Set([...(tracked.untoldOn ?? []), channel])];
  // Its latest firing event, as the engine told it (escalation and a lapsing
  // acknowledgement tell it): not a deferred escalation's or a telling's copy of it.
  const { firstTold: _first, again: _again, escalation: _step, ...plain } = event;
  const newer = tracked.event !== undefined && tracked.event.at >= plain.at;
  return {
    ...tracked,
    ...(newer ? {} : { event: kept(plain) }),
    untoldSince: tracked.untoldSince ?? nowMs,
    ...(untoldOn === undefined ? {} : { untoldOn }),
    untoldEvents: { ...tracked.untoldEvents, [channel]: kept(event) },
  };
}

/**
 * A first firing not followed yet that a silence kept on this channel, as it is followed: told
 * there when the silence ends; `heardOn`, its channels a message told it before it was
 * followed (rules 2, 3).
 */
export function firstKept(
  channel: string,
  event: HeldEvent,
  nowMs: number,
  heardOn: readonly string[] | undefined,
): Untold {
  return {
    untoldSince: nowMs,
    untoldOn: [channel],
    untoldEvents: { [channel]: kept(event) },
    ...(heardOn === undefined ? {} : { heardOn }),
  };
}

/** When the silences holding what they kept untold of the alert, as it was, end. */
export function keptUntil(
  tracked: TrackedAlert,
  silences: readonly Silence[],
  nowMs: number,
): number[] {
  if (tracked.untoldSince === undefined) return [];
  const due: number[] = [];
  for (const item of [tracked.event, ...Object.values(tracked.untoldEvents ?? {})]) {
    const silence = item === undefined ? undefined : silenceFor(silences, item, nowMs);
    if (silence !== undefined) due.push(silence.endsAt);
  }
  return due;
}

/** The alert once these channels are no longer kept untold (told, or told now). */
export function stillUntold(tracked: TrackedAlert, told: readonly string[]): TrackedAlert {
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
export function neverHeard(tracked: TrackedAlert, channel: string): boolean {
  if (tracked.heardOn === undefined) return tracked.unheard === true;
  return !tracked.heardOn.includes(channel);
}
