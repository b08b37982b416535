import { zonedTimeToEpoch, zoneOffsetMs } from '../time/zone';
import type { ActiveHours } from '../types/config';
import { WEEKDAYS } from '../types/config';

const DAY_MS = 86_400_000;

interface WallDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** 0 = Sunday. */
  readonly weekday: number;
}

function wallDay(localMs: number): WallDay {
  const date = new Date(localMs);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
  };
}

function windowOf(active: ActiveHours, day: WallDay, zone: string): [number, number] {
  const start = zonedTimeToEpoch(zone, day.year, day.month, day.day, 0, active.fromMinutes);
  const endDay =
    active.toMinutes > active.fromMinutes
      ? day
      : wallDay(Date.UTC(day.year, day.month - 1, day.day) + DAY_MS);
  const end = zonedTimeToEpoch(zone, endDay.year, endDay.month, endDay.day, 0, active.toMinutes);
  return [start, end];
}

/**
 * The windows that could hold or follow `nowMs`: one per configured day from yesterday (a
 * window across midnight started then) to a week ahead, as [start, end) instants.
 */
function windowsAround(active: ActiveHours, nowMs: number, zone: string): [number, number][] {
  const localMidnight = Math.floor((nowMs + zoneOffsetMs(nowMs, zone)) / DAY_MS) * DAY_MS;
  const windows: [number, number][] = [];
  for (let offset = -1; offset <= 8; offset += 1) {
    const day = wallDay(localMidnight + offset * DAY_MS);
    if (active.days.includes(WEEKDAYS[day.weekday] as (typeof WEEKDAYS)[number])) {
      windows.push(windowOf(active, day, zone));
    }
  }
  return windows;
}

/** Whether `nowMs` lies inside one of the channel's windows. No `active`: always. */
export function isActive(active: ActiveHours | undefined, nowMs: number, zone: string): boolean {
  if (active === undefined) return true;
  return windowsAround(active, nowMs, zone).some(([start, end]) => start <= nowMs && nowMs < end);
}

/** The start of the next window after `nowMs` (the digest's time); `nowMs` itself when active. */
export function nextWindowStart(
  active: ActiveHours | undefined,
  nowMs: number,
  zone: string,
): number {
  if (active === undefined) return nowMs;
  let next = Number.POSITIVE_INFINITY;
  for (const [start, end] of windowsAround(active, nowMs, zone)) {
    if (start <= nowMs && nowMs < end) return nowMs;
    if (start > nowMs && start < next) next = start;
  }
  // `days` is never empty (validated) and the windows span a week ahead: one always follows.
  return Number.isFinite(next) ? next : nowMs;
}
