import { TimeZoneError } from './errors';

/**
 * Wall-clock time in an IANA zone, with Intl only (no tz library), or from a zone table
 * (`ZoneTable`) computed with Intl beforehand: the first `Intl` call of a process loads ICU's
 * data (about 11 ms of CPU), which a Lambda's cold start would otherwise pay for one offset.
 *
 * The API's timestamps carry no offset, so a local time has to be turned into an instant.
 * Where a zone has DST, a local time can be missing (spring-forward gap) or happen twice
 * (fall-back overlap). The rule here is the one of Temporal's and java.time's "compatible"
 * disambiguation: an ambiguous time is the earlier instant (the first occurrence, with the
 * offset in force before the change); a nonexistent time is moved forward by the length of
 * the gap (read with the offset in force before the change, so 02:30 in New York on the
 * spring-forward day is 03:30 EDT).
 */

export const DEFAULT_TIME_ZONE = 'Asia/Kolkata';

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** Every modern offset and transition is on a 15-minute boundary, so offsets are cached per bucket. */
const BUCKET_MS = 15 * MINUTE_MS;
/** Caches are dropped when they pass this many entries (a long-lived process, many zones). */
export const CACHE_LIMIT = 20_000;

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
/** zone -> UTC 15-minute bucket -> offset ms at that instant. */
const offsetCache = new Map<string, Map<number, number>>();
/** zone -> local 15-minute bucket -> offset ms resolving that local time. */
const localCache = new Map<string, Map<number, number>>();

/**
 * A zone's offsets over a range of instants, as Intl gives them, so they can be answered
 * without Intl: span `i` starts at `starts[i]` (the first at `fromMs`) with offset
 * `offsets[i]` (ms, east positive) and short name `names[i]`, until the next span or `toMs`.
 * `shared/time/zone.ts` `zoneTable` makes one; `useZoneTable` makes this module answer from it.
 */
export interface ZoneTable {
  readonly zone: string;
  readonly fromMs: number;
  readonly toMs: number;
  readonly starts: readonly number[];
  readonly offsets: readonly number[];
  readonly names: readonly string[];
}

/** zone -> its table, when one was given (`useZoneTable`). */
const tables = new Map<string, ZoneTable>();

/**
 * Answers `zone`'s offsets, names and checks from `table` within its range (the same answers
 * Intl gives, computed with it beforehand; outside the range Intl still answers).
 */
export function useZoneTable(table: ZoneTable): void {
  tables.set(table.zone, table);
}

/** The span of `zone`'s table holding `epochMs`, or -1 when no table covers it. */
export function tableSpan(epochMs: number, zone: string): number {
  const table = tables.get(zone);
  if (table === undefined || epochMs < table.fromMs || epochMs >= table.toMs) return -1;
  let low = 0;
  let high = table.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((table.starts[middle] ?? Number.POSITIVE_INFINITY) <= epochMs) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** `zone`'s table, when one was given. */
export function tableOf(zone: string): ZoneTable | undefined {
  return tables.get(zone);
}

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = partsFormatters.get(zone);
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
        era: 'short',
      });
    } catch (error) {
      throw new TimeZoneError(zone, { cause: error });
    }
    partsFormatters.set(zone, formatter);
  }
  return formatter;
}

/** Throws `TimeZoneError` unless `zone` is an IANA zone this runtime knows. */
export function assertTimeZone(zone: string): void {
  if (!tables.has(zone)) formatterFor(zone);
}

/** `true` when `zone` is an IANA zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (tables.has(zone)) return true;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The offset at `epochMs` (whole seconds count: milliseconds are dropped) by Intl. */
export function intlOffsetMs(epochMs: number, zone: string): number {
  const fields: Record<string, number> = {};
  let bc = false;
  for (const part of formatterFor(zone).formatToParts(epochMs)) {
    if (part.type === 'era') bc = part.value === 'BC' || part.value === 'B';
    else if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const year = bc ? 1 - (fields.year ?? 0) : (fields.year ?? 0);
  const wall = Date.UTC(
    year,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  // formatToParts drops milliseconds; the offset is whole seconds at worst.
  return wall - (epochMs - (((epochMs % 1000) + 1000) % 1000));
}

/** The zone's own cache in `caches`, made on first use and emptied past `CACHE_LIMIT` entries. */
export function cacheFor<K, V>(caches: Map<string, Map<K, V>>, zone: string): Map<K, V> {
  let cache = caches.get(zone);
  if (!cache) {
    cache = new Map();
    caches.set(zone, cache);
  } else if (cache.size > CACHE_LIMIT) {
    cache.clear();
  }
  return cache;
}

/** The zone's offset from UTC (ms, east positive) at an instant. */
export function zoneOffsetMs(epochMs: number, zone: string): number {
  const bucket = Math.floor(epochMs / BUCKET_MS);
  const cache = cacheFor(offsetCache, zone);
  let offset = cache.get(bucket);
  if (offset === undefined) {
    const start = bucket * BUCKET_MS;
    const span = tableSpan(start, zone);
    offset =
      span === -1 ? intlOffsetMs(start, zone) : (tables.get(zone)?.offsets[span] ?? Number.NaN);
    cache.set(bucket, offset);
  }
  return offset;
}

/**
 * The instant of a local wall-clock time (read as if UTC) in `zone`, by the gap/overlap rule
 * above. Cached per local 15-minute bucket.
 */
export function resolveLocal(localMs: number, zone: string): number {
  const bucket = Math.floor(localMs / BUCKET_MS);
  const cache = cacheFor(localCache, zone);
  let offset = cache.get(bucket);
  if (offset === undefined) {
    // The instant lies within 14h of the local time read as UTC, so the offsets a day either
    // side are the only candidates (DST changes are months apart).
    const probe = bucket * BUCKET_MS;
    const before = zoneOffsetMs(probe - DAY_MS, zone);
    const after = zoneOffsetMs(probe + DAY_MS, zone);
    const valid = [before, after].filter((o) => zoneOffsetMs(probe - o, zone) === o);
    // Ambiguous: the larger offset gives the earlier instant. Gap: none is valid; the offset
    // before the change moves the time forward by the gap.
    offset = valid.length === 0 ? before : Math.max(...valid);
    cache.set(bucket, offset);
  }
  return localMs - offset;
}

/**
 * The instant of a wall-clock time in `zone` (month 1-12). See the module comment for gaps
 * and overlaps. Throws `TimeZoneError` for an unknown zone.
 */
export function zonedTimeToEpoch(
  zone: string,
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): number {
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  return resolveLocal(local, zone);
}
