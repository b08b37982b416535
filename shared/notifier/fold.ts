import { SEVERITIES } from '../types/config';
import type { HeldEvent } from './types';

/**
 * A line of an alert (`lineKeys`) with more events than this in one list is told by the events
 * a message needs of it (`keptOf`: at most four), and a message's id counts its other events
 * instead of naming them.
 */
export const FOLD_PER_ALERT = 4;

/**
 * A list of events the notifier keeps (a group's held events, the SMS the cap held, the
 * active-hours digest) is folded once it holds more events than this: below it every event is
 * kept as itself. Above it the list is bounded by its alerts, not its events: a weekend of
 * flapping alerts deferred would otherwise pass the state item's size (about 36,000 events).
 */
export const FOLD_ABOVE = 1_000;

/** How many events an event kept in a list stands for: itself and those folded into it. */
export function weightOf(event: HeldEvent): number {
  return 1 + (event.folded ?? 0);
}

/**
 * The line of a message each event belongs to (`alertLines`, contract 6.1 rules 1, 3 and 6):
 * one per firing of an alert, so an alert that fired again while held is told as each firing,
 * each with its own end; of an alert with more than three firings in one list, the first and
 * the last keep their lines and those between share one (told resolved, with the time of the
 * last of them): a flapping alert's weekend digest stays three lines, and its kept events
 * bounded (`foldEvents`). An event's firing is its `firedAt` (the engine's: a firing's own
 * time); an event decided before the engine said it joins its alert's latest firing. The same lines are found
 * in a list folded before more events were appended.
 */
export function lineKeys(events: readonly HeldEvent[]): string[] {
  const current = new Map<string, { firing: number | undefined; index: number }>();
  const indexes = events.map((event) => {
    const firing = event.firedAt;
    const last = current.get(event.key);
    if (last === undefined) {
      current.set(event.key, { firing, index: 0 });
      return 0;
    }
    if (last.firing === undefined) last.firing = firing;
    else if (firing !== undefined && firing !== last.firing) {
      current.set(event.key, { firing, index: last.index + 1 });
      return last.index + 1;
    }
    return last.index;
  });
  return events.map((event, at) => {
    const index = indexes[at] as number;
    const lines = (current.get(event.key)?.index ?? 0) + 1;
    if (index === 0) return event.key;
    return `${event.key}\u0000${index === lines - 1 ? 'last' : 'between'}`;
  });
}

/**
 * Positions in `events` (all of one line: an alert's firing, in list order) of what a message
 * tells of it (`alertLines`): the first event (where the alert's line stands), the first firing (its
 * `firedAt`), the first of the highest severity, and the last (status, time, labels, value,
 * texts). The same positions are found in a list folded before more events were appended:
 * each is either kept by the earlier fold or among the appended events.
 */
export function keptOf(events: readonly HeldEvent[]): number[] {
  let firstFiring = -1;
  let highest = 0;
  let highestRank = -1;
  events.forEach((event, index) => {
    if (firstFiring < 0 && event.status === 'firing') firstFiring = index;
    const rank = SEVERITIES.indexOf(event.severity);
    if (rank > highestRank) {
      highestRank = rank;
      highest = index;
    }
  });
  const kept = new Set([0, firstFiring, highest, events.length - 1]);
  kept.delete(-1);
  return [...kept].sort((a, b) => a - b);
}

/**
 * The list with each line (an alert's firing) of more than `FOLD_PER_ALERT` events reduced to
 * `keptOf` it; every event dropped is counted in the next event of its line that stays (`folded`), so a message
 * delivering that one delivers it too. Every message composed from the folded list is the
 * message the whole list makes. A list of `above` events or fewer is returned as it is.
 */
export function foldEvents(events: readonly HeldEvent[], above = FOLD_ABOVE): readonly HeldEvent[] {
  if (events.length <= above) return events;
  const byLine = new Map<string, number[]>();
  lineKeys(events).forEach((line, index) => {
    const positions = byLine.get(line);
    if (positions) positions.push(index);
    else byLine.set(line, [index]);
  });
  const replaced = new Map<number, HeldEvent | null>();
  for (const positions of byLine.values()) {
    const mine = positions.map((index) => events[index] as HeldEvent);
    const weight = mine.reduce((sum, event) => sum + weightOf(event), 0);
    if (weight <= FOLD_PER_ALERT) continue;
    const kept = new Set(keptOf(mine));
    if (kept.size === mine.length) continue;
    let carried = 0;
    mine.forEach((event, at) => {
      const index = positions[at] as number;
      if (!kept.has(at)) {
        carried += weightOf(event);
        replaced.set(index, null);
      } else if (carried > 0) {
        replaced.set(index, { ...event, folded: (event.folded ?? 0) + carried });
        carried = 0;
      }
    });
  }
  if (replaced.size === 0) return events;
  const out: HeldEvent[] = [];
  events.forEach((event, index) => {
    const instead = replaced.get(index);
    if (instead === undefined) out.push(event);
    else if (instead !== null) out.push(instead);
  });
  return out;
}
