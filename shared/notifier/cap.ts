import { type ChannelConfig, type Config, SEVERITIES } from '../types/config';
import { highestSeverity } from './bodies';
import { type ComposedPart, compose } from './compose';
import { wantsSms } from './pages';
import { silenceFor } from './silence';
import type { HeldEvent, Outbound, Silence } from './types';

export const HOUR_MS = 3_600_000;

/** A message decided for a channel, before the SMS cap has looked at it. */
export interface Candidate {
  readonly part: ComposedPart;
  /**
   * Part 1 of a message with the first firing of a critical alert (a new group's, or one that
   * brought its group forward), an escalation of a critical alert, or a handover that pages:
   * the cap never holds its SMS.
   */
  readonly criticalFirst: boolean;
  /**
   * A rotation's handoff (contract section 8) or an ack's confirmation to its caller (contract
   * 6.1 rule 7): the cap neither holds its SMS nor counts it, so the incoming person always
   * learns they carry the pager, forged calls cannot burn the budget, and the pages after it
   * keep their room. Its lines are not events the cap's digest owes, nor does its SMS tell
   * what the digest owes.
   */
  readonly uncapped?: boolean;
  readonly events: readonly HeldEvent[];
}

/** When the SMS of the last rolling hour leave room for one more. */
export function smsRoomAt(channel: ChannelConfig, sentAt: readonly number[]): number {
  const over = sentAt.length - channel.smsPerHour;
  if (over < 0) return Number.NEGATIVE_INFINITY;
  return (sentAt[over] ?? 0) + HOUR_MS;
}

/** `Outbound.folded` of a message delivering `ids`: absent unless one of them stands for others. */
function foldedOf(
  ids: readonly string[],
  events: readonly HeldEvent[],
): { folded?: Record<string, number> } {
  const delivered = new Set(ids);
  const folded: Record<string, number> = {};
  let any = false;
  for (const event of events) {
    if (event.folded === undefined || !delivered.has(event.id)) continue;
    folded[event.id] = event.folded;
    any = true;
  }
  return any ? { folded } : {};
}

/**
 * An alert's firing, as the cap's digest follows it: the engine's `firedAt` (a firing's own
 * time), or the alert alone for an event decided before the engine said it.
 */
function firingTag(event: HeldEvent): string {
  return event.firedAt === undefined ? event.key : `${event.key}\u0000${event.firedAt}`;
}

/**
 * A later firing of an alert told: the cap's digest tells the alert's latest status, so the
 * SMS held of its earlier firings (emailed already) are not told again. Updates `smsHeld`.
 */
function supersede(smsHeld: HeldEvent[], told: readonly HeldEvent[]): void {
  if (smsHeld.length === 0) return;
  const firings = new Map<string, number>();
  for (const event of told) {
    if (event.firedAt === undefined) continue;
    firings.set(event.key, Math.max(event.firedAt, firings.get(event.key) ?? event.firedAt));
  }
  const stale = (event: HeldEvent) => {
    const firing = firings.get(event.key);
    return firing !== undefined && event.firedAt !== undefined && event.firedAt < firing;
  };
  if (!smsHeld.some(stale)) return;
  const kept = smsHeld.filter((event) => !stale(event));
  smsHeld.length = 0;
  for (const event of kept) smsHeld.push(event);
}

/**
 * The firings an SMS told (`firingTag`), each with whether it told their resolution. Adds to
 * `told`.
 */
function tellsOf(told: Map<string, boolean>, events: readonly HeldEvent[]): void {
  for (const event of events) {
    const tag = firingTag(event);
    told.set(tag, told.get(tag) === true || event.status === 'resolved');
  }
}

/**
 * Whether the cap still owes `event` once an SMS told `told`: not when the SMS told its firing
 * (the firing's latest status), unless `event` is the firing's resolution and the SMS told it
 * firing only (a handover's kept escalation, say): the end is news the SMS did not carry.
 */
function owedAfter(told: ReadonlyMap<string, boolean>, event: HeldEvent): boolean {
  const resolved = told.get(firingTag(event));
  return resolved === undefined || (event.status === 'resolved' && !resolved);
}

/** Two sorted key lists in order: by their first differing key, a prefix first. */
function byKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const x = a[index] as string;
    const y = b[index] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The messages of this step whose SMS the hour has room for. A page goes whatever the count,
 * so pages count first and the room they leave goes to the other messages, the most severe
 * first, then the one telling more alerts (an alert it leaves out stays owed), then more of
 * them resolved (the latest news: an SMS that tells an end owes nothing of its firing), then
 * by their alerts' keys and their ends' (two messages of the same alerts and ends take the
 * room in the step's order, a boundary: they may tell different firings of them): the cap is
 * passed only when pages alone pass it, and the scarce SMS carry what matters most.
 */
function smsGranted(
  channel: ChannelConfig,
  sentAt: readonly number[],
  decided: readonly Candidate[],
  nowMs: number,
): Set<ComposedPart> {
  const capped = decided.filter((item) => item.uncapped !== true && item.part.message.sms !== null);
  const counted = [...sentAt];
  for (const item of capped) if (item.criticalFirst) counted.push(nowMs);
  const wanting = capped
    .filter((item) => !item.criticalFirst)
    .map((item) => ({
      part: item.part,
      rank: SEVERITIES.indexOf(highestSeverity(item.part.message)),
      keys: [...new Set(item.part.message.alerts.map((alert) => alert.key))].sort(),
      ends: [
        ...new Set(
          item.part.message.alerts
            .filter((alert) => alert.status === 'resolved')
            .map((alert) => alert.key),
        ),
      ].sort(),
    }))
    .sort(
      (a, b) =>
        b.rank - a.rank ||
        b.keys.length - a.keys.length ||
        b.ends.length - a.ends.length ||
        byKeys(a.keys, b.keys) ||
        byKeys(a.ends, b.ends),
    );
  const granted = new Set<ComposedPart>();
  for (const item of wanting) {
    if (smsRoomAt(channel, counted) > nowMs) break;
    counted.push(nowMs);
    granted.add(item.part);
  }
  return granted;
}

/**
 * The SMS cap (contract section 6): a message's SMS goes while the rolling hour has room, or
 * when the cap never holds it (`criticalFirst`; `smsGranted` says which get the room);
 * otherwise the email goes alone and its events wait in `smsHeld` for one digest SMS. A firing
 * waiting there takes each later event of it its channel is told by email alone (not a later
 * firing's: that one was told), so the digest tells its latest status (contract 6.1 rule 3:
 * never firing after its resolution was told); once an SMS tells the firing, nothing of it is
 * owed any more but an end it did not tell (`owedAfter`). The step's messages are judged
 * together, not one by one in their order: what its SMS tell, then what its held messages
 * hold, then what its emails add to a firing still waiting; what is held is kept in the
 * step's order (older news first). Updates `sentAt` and `smsHeld`.
 */
export function capSms(
  channel: ChannelConfig,
  sentAt: number[],
  smsHeld: HeldEvent[],
  decided: readonly Candidate[],
  nowMs: number,
): Outbound[] {
  const granted = smsGranted(channel, sentAt, decided, nowMs);
  const smsTold = new Map<string, boolean>();
  const told: HeldEvent[] = [];
  const fates = decided.map(({ part, criticalFirst, uncapped, events }) => {
    if (uncapped === true) return 'uncapped' as const;
    for (const event of events) told.push(event);
    if (part.message.sms === null) return 'emailed' as const;
    if (!criticalFirst && !granted.has(part)) return 'held' as const;
    sentAt.push(nowMs);
    tellsOf(smsTold, events);
    return 'sent' as const;
  });
  const kept = smsHeld.filter((event) => owedAfter(smsTold, event));
  const waiting = new Set(kept.map(firingTag));
  decided.forEach(({ events }, index) => {
    if (fates[index] !== 'held') return;
    for (const event of events) if (owedAfter(smsTold, event)) waiting.add(firingTag(event));
  });
  const owes = (fate: (typeof fates)[number] | undefined, event: HeldEvent) =>
    fate === 'held'
      ? owedAfter(smsTold, event)
      : fate === 'emailed' && waiting.has(firingTag(event));
  // In the step's order (a gone channel's handover first: older news), so each alert's latest
  // status is its last event.
  decided.forEach(({ events }, index) => {
    for (const event of events) if (owes(fates[index], event)) kept.push(event);
  });
  smsHeld.length = 0;
  for (const event of kept) smsHeld.push(event);
  // A later firing of an alert told this step: the digest retells that one, not the earlier.
  supersede(smsHeld, told);
  return decided.map(({ part, events }, index): Outbound => {
    const delivers = { delivers: part.ids, ...foldedOf(part.ids, events) };
    if (fates[index] !== 'held') return { message: part.message, ...delivers, smsHeld: false };
    return { message: { ...part.message, sms: null }, ...delivers, smsHeld: true };
  });
}

/**
 * The cap's digest SMS of the events `smsHeld` keeps, once the hour has room: events a silence
 * now matches left out (their email told them), and those of a firing a later one of its alert
 * was told after (`laterFiringTold`, `ChannelOptions`). Updates `sentAt`; the caller empties
 * `smsHeld`.
 */
export function capDigest(
  config: Config,
  channel: ChannelConfig,
  sentAt: number[],
  smsHeld: readonly HeldEvent[],
  silences: readonly Silence[],
  nowMs: number,
  laterFiringTold: ((key: string, firedAt: number, channel: string) => boolean) | undefined,
): Outbound[] {
  // A silence matches an alert as the latest SMS the digest owes of it has it (a deploy may
  // have changed the rule's severity between its firing and its resolution; an event below
  // `minSeverity` is in the list for its status only, it owes no SMS): all of it or none,
  // so the digest never tells a firing whose resolution the silence kept (contract 6.1
  // rules 3, 5).
  const latest = new Map<string, HeldEvent>();
  for (const event of smsHeld) {
    if (!latest.has(event.key) || wantsSms(channel, [event])) latest.set(event.key, event);
  }
  const quiet = smsHeld.filter((event) => {
    const last = latest.get(event.key) ?? event;
    if (laterFiringTold !== undefined && event.firedAt !== undefined) {
      if (laterFiringTold(event.key, event.firedAt, channel.name)) return false;
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
  const messages: Outbound[] = [];
  for (const part of parts) messages.push({ message: part.message, delivers: [], smsHeld: false });
  if (parts.length > 0) sentAt.push(nowMs);
  return messages;
}
