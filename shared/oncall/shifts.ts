import { resolveLocal, zoneOffsetMs } from '../time/offsets';
import { type RotationConfig, WEEKDAYS } from '../types/config';

/*
 * A rotation's shifts on the wall clock of the config zone (contract section 8). Handoff n is
 * the first handoff's local time plus n shifts, read as local time: a daily 09:00 handoff stays
 * 09:00 across a clock change, so the shift spanning it is an hour shorter or longer. A local
 * time the clock skips moves forward by the gap, one it passes twice is its first instant
 * (`resolveLocal`); the handoffs never go backwards, and a shift that falls wholly in a
 * skipped hour is empty (nobody carries it). Before the first handoff the turns run backwards,
 * so someone is always on call: no page is lost for want of a person.
 */

const DAY_MS = 86_400_000;

/** The local time (as if UTC) of the rotation's first handoff: on or after `start`'s midnight. */
export function firstHandoffLocal(rotation: RotationConfig): number {
  const [year, month, day] = rotation.start.split('-').map(Number) as [number, number, number];
  const midnight = Date.UTC(year, month - 1, day);
  const { weekday, minutes } = rotation.handoff;
  const ahead =
    weekday === undefined
      ? 0
      : (WEEKDAYS.indexOf(weekday) - new Date(midnight).getUTCDay() + 7) % 7;
  return midnight + ahead * DAY_MS + minutes * 60_000;
}

/** The instant of handoff `n` (0: the first; negative: before it). */
export function handoffAt(rotation: RotationConfig, n: number, zone: string): number {
  return resolveLocal(firstHandoffLocal(rotation) + n * rotation.shiftMs, zone);
}

/** The member whose turn shift `n` is. */
export function memberOf(rotation: RotationConfig, n: number): string {
  const count = rotation.members.length;
  return rotation.members[((n % count) + count) % count] as string;
}

/** The shift holding `atMs`: the `n` with handoffAt(n) <= atMs < handoffAt(n + 1). */
export function shiftIndexAt(rotation: RotationConfig, atMs: number, zone: string): number {
  const local = atMs + zoneOffsetMs(atMs, zone);
  let n = Math.floor((local - firstHandoffLocal(rotation)) / rotation.shiftMs);
  // The local estimate is off by at most a clock change, so these loops run a step or two.
  while (handoffAt(rotation, n + 1, zone) <= atMs) n += 1;
  while (handoffAt(rotation, n, zone) > atMs) n -= 1;
  return n;
}
