import { SimulatorZoneError } from './errors';

/**
 * Wall-clock time in an IANA zone, as the API writes it (no offset). Only the simulator's own
 * needs: rendering both `created_at` shapes fast enough for 100k records, and reading the
 * payments query's dates. The client's parser lives in `shared/time/zone.ts`.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Every real zone changes offset on a quarter hour, so one lookup per quarter hour is exact. */
const BUCKET_MS = 15 * 60_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, Map<number, number>>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch (error) {
      throw new SimulatorZoneError(zone, { cause: error });
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Throws `SimulatorZoneError` unless `zone` is a zone this runtime knows. */
export function assertZone(zone: string): void {
  formatterFor(zone);
}

function computeOffset(ms: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(ms)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/** The zone's offset from UTC (ms) at an instant. */
export function zoneOffsetMs(ms: number, zone: string): number {
  let cache = offsets.get(zone);
  if (!cache) {
    cache = new Map();
    offsets.set(zone, cache);
  }
  const bucket = Math.floor(ms / BUCKET_MS);
  let offset = cache.get(bucket);
  if (offset === undefined) {
    offset = computeOffset(bucket * BUCKET_MS, zone);
    if (cache.size > 50_000) cache.clear();
    cache.set(bucket, offset);
  }
  return offset;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function wallDate(ms: number, zone: string): Date {
  return new Date(ms + zoneOffsetMs(ms, zone));
}

/** `2026-11-21 10:00:05`, the live calls' `created_at` shape. */
export function formatIsoWall(ms: number, zone: string): string {
  const d = wallDate(ms, zone);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `21-Nov-2026 10:00:05`, the payments' `created_at` shape. */
export function formatMonthWall(ms: number, zone: string): string {
  const d = wallDate(ms, zone);
  return `${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * The instant a wall-clock time in `zone` names. In a DST overlap the earlier instant wins; in
 * a gap the time is read with the offset before the gap (02:30 becomes 03:30). Fields are not
 * range-checked here: callers validate first.
 */
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
  const asUtc = Date.UTC(
    fields.year,
    fields.month - 1,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
  );
  const target = formatIsoWall(asUtc, 'UTC');
  const before = asUtc - zoneOffsetMs(asUtc - 86_400_000, zone);
  const after = asUtc - zoneOffsetMs(asUtc + 86_400_000, zone);
  const valid = [before, after].filter((ms) => formatIsoWall(ms, zone) === target);
  return valid.length > 0 ? Math.min(...valid) : before;
}
