import { formatApiDateTime, zonedTimeToEpoch, zoneOffsetMs } from '../shared/time/zone';

/**
 * The simulator's wall-clock needs on top of `shared/time/zone.ts`: the payments' own
 * `DD-Mon-YYYY HH:MM:SS` shape, which only the API writes (the client only reads it).
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

/** `2026-11-21 10:00:05`, the live calls' `created_at` shape. */
export const formatIsoWall = formatApiDateTime;

/** `21-Nov-2026 10:00:05`, the payments' `created_at` shape. */
export function formatMonthWall(ms: number, zone: string): string {
  const d = new Date(ms + zoneOffsetMs(ms, zone));
  return `${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The instant a wall-clock time in `zone` names (DST rule of `zonedTimeToEpoch`). */
export function wallToEpoch(
  fields: {
    year: number;
    month: number;
    day: number;
    hour: number;
    minute: number;
    second: number;
  },
  zone: string,
): number {
  return zonedTimeToEpoch(
    zone,
    fields.year,
    fields.month,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
  );
}
