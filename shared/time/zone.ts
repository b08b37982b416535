import { TimeZoneError } from './errors';

/**
 * Wall-clock time in an IANA zone, with Intl only (no tz library).
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
const DAY_MS = 86_400_000;
/** Every modern offset and transition is on a 15-minute boundary, so offsets are cached per bucket. */
const BUCKET_MS = 15 * MINUTE_MS;
const CACHE_LIMIT = 20_000;

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
/** zone -> UTC 15-minute bucket -> offset ms at that instant. */
const offsetCache = new Map<string, Map<number, number>>();
/** zone -> local 15-minute bucket -> offset ms resolving that local time. */
const localCache = new Map<string, Map<number, number>>();
const abbreviations = new Map<string, string>();

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
  formatterFor(zone);
}

/** `true` when `zone` is an IANA zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

function computeOffset(epochMs: number, zone: string): number {
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

function cacheFor(caches: Map<string, Map<number, number>>, zone: string): Map<number, number> {
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
    offset = computeOffset(bucket * BUCKET_MS, zone);
    cache.set(bucket, offset);
  }
  return offset;
}

function resolveLocal(localMs: number, zone: string): number {
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

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;

function monthFromName(name: string): number | undefined {
  const lower = name.toLowerCase();
  const short = MONTHS[lower];
  if (short !== undefined) return short;
  const index = MONTH_NAMES.indexOf(lower as (typeof MONTH_NAMES)[number]);
  return index === -1 ? undefined : index + 1;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A local date of the API, read once per distinct text and zone. */
interface LocalDay {
  /** Local midnight, read as if it were UTC. */
  readonly localMs: number;
  /** The offset when it holds all day (no DST change that day), for the cheap path. */
  readonly offset: number | undefined;
}

const DATE_SHAPES = [/^(\d{4})-(\d{1,2})-(\d{1,2})$/, /^(\d{1,2})[- ]([A-Za-z]{3,9})[- ](\d{4})$/];
const TIME_SHAPE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/;
/** zone -> date text -> its day, or null when the text is not a date. */
const dayCache = new Map<string, Map<string, LocalDay | null>>();

function readDay(text: string, zone: string): LocalDay | undefined {
  let cache = dayCache.get(zone);
  if (!cache) {
    cache = new Map();
    dayCache.set(zone, cache);
  } else if (cache.size > CACHE_LIMIT) {
    cache.clear();
  }
  let day = cache.get(text);
  if (day === undefined) {
    day = computeDay(text, zone);
    cache.set(text, day);
  }
  return day ?? undefined;
}

function computeDay(text: string, zone: string): LocalDay | null {
  let year: number;
  let month: number | undefined;
  let date: number;
  const iso = DATE_SHAPES[0]?.exec(text);
  if (iso) {
    year = Number(iso[1]);
    month = Number(iso[2]);
    date = Number(iso[3]);
  } else {
    const named = DATE_SHAPES[1]?.exec(text);
    if (!named) return null;
    date = Number(named[1]);
    month = monthFromName(named[2] ?? '');
    year = Number(named[3]);
  }
  if (month === undefined || month < 1 || month > 12) return null;
  if (date < 1 || date > daysInMonth(year, month)) return null;
  const localMs = Date.UTC(year, month - 1, date);
  formatterFor(zone);
  const first = localMs - resolveLocal(localMs, zone);
  const last = localMs + DAY_MS - 1000 - resolveLocal(localMs + DAY_MS - 1000, zone);
  return { localMs, offset: first === last ? first : undefined };
}

/** `HH:MM:SS` by character codes (the common case), other shapes by regex; ms of the day. */
function readTimeOfDay(text: string): number | undefined {
  if (text.length === 8 && text.charCodeAt(2) === 58 && text.charCodeAt(5) === 58) {
    const h = twoDigits(text, 0);
    const m = twoDigits(text, 3);
    const s = twoDigits(text, 6);
    if (h < 0 || m < 0 || s < 0 || h > 23 || m > 59 || s > 59) return undefined;
    return h * 3_600_000 + m * 60_000 + s * 1000;
  }
  const match = TIME_SHAPE.exec(text);
  if (!match) return undefined;
  const h = Number(match[1]);
  const m = Number(match[2]);
  const s = Number(match[3] ?? 0);
  if (h > 23 || m > 59 || s > 59) return undefined;
  return h * 3_600_000 + m * 60_000 + s * 1000 + Number((match[4] ?? '').padEnd(3, '0'));
}

function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a < 0 || a > 9 || b < 0 || b > 9 ? -1 : a * 10 + b;
}

/**
 * Reads an API timestamp as wall-clock time in `zone`: `YYYY-MM-DD HH:MM:SS` or
 * `DD-Mon-YYYY HH:MM:SS` (month name in any case, short or full). Seconds may be left out,
 * a `T` may stand for the space, and a date alone means midnight. Returns UTC epoch ms, or
 * `undefined` when the text is not such a timestamp or names an impossible date.
 * Throws `TimeZoneError` for an unknown zone.
 *
 * Hot path (100k records per body): each distinct date is parsed once per zone and the time
 * of day is read by character codes.
 */
export function parseApiTimestamp(text: string, zone: string): number | undefined {
  const value = text.trim();
  let split = value.indexOf(' ', 8);
  if (split === -1) split = value.indexOf('T', 8);
  const day = readDay(split === -1 ? value : value.slice(0, split), zone);
  if (!day) return undefined;
  if (split === -1)
    return day.offset === undefined ? resolveLocal(day.localMs, zone) : day.localMs - day.offset;
  const time = readTimeOfDay(value.slice(split + 1));
  if (time === undefined) return undefined;
  const local = day.localMs + time;
  return day.offset === undefined ? resolveLocal(local, zone) : local - day.offset;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The wall clock of an instant in `zone` as the API writes it: `YYYY-MM-DD HH:MM:SS`. */
export function formatApiDateTime(epochMs: number, zone: string): string {
  const wall = new Date(epochMs + zoneOffsetMs(epochMs, zone));
  return (
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())} ` +
    `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`
  );
}

function offsetLabel(offsetMs: number): string {
  if (offsetMs === 0) return 'GMT';
  const minutes = Math.abs(offsetMs) / MINUTE_MS;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `GMT${offsetMs < 0 ? '-' : '+'}${hours}${rest ? `:${pad(rest)}` : ''}`;
}

/** A short zone name such as IST, BST or EDT; `GMT+5:45` style when no locale names it. */
function abbreviation(epochMs: number, zone: string, offsetMs: number): string {
  const key = `${zone}|${offsetMs}`;
  let name = abbreviations.get(key);
  if (name === undefined) {
    name = offsetLabel(offsetMs);
    for (const locale of ['en-US', 'en-GB', 'en-IN']) {
      const part = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' })
        .formatToParts(epochMs)
        .find((p) => p.type === 'timeZoneName')?.value;
      if (part && !/^(GMT|UTC)[+-]/.test(part)) {
        name = part;
        break;
      }
    }
    abbreviations.set(key, name);
  }
  return name;
}

/** An instant for people, in `zone`: `2026-11-21 10:00:05 IST`. */
export function formatInZone(epochMs: number, zone: string): string {
  const offset = zoneOffsetMs(epochMs, zone);
  return `${formatApiDateTime(epochMs, zone)} ${abbreviation(epochMs, zone, offset)}`;
}

const CLOCK = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/;

/**
 * Reads a call duration as seconds: `HH:MM:SS` (hours may pass 24), `MM:SS`, or plain
 * seconds as a number or numeric text (fractions rounded down). `undefined` when unreadable
 * or negative.
 */
export function parseCallTime(input: unknown): number | undefined {
  if (typeof input === 'number') {
    return Number.isFinite(input) && input >= 0 ? Math.floor(input) : undefined;
  }
  if (typeof input !== 'string') return undefined;
  const value = input.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.floor(Number(value));
  const clock = CLOCK.exec(value);
  if (!clock) return undefined;
  const a = Number(clock[1]);
  const b = Number(clock[2]);
  if (clock[3] === undefined) {
    // MM:SS: minutes may run past 59 on a long call, seconds may not.
    return b > 59 ? undefined : a * 60 + b;
  }
  const c = Number(clock[3]);
  if (b > 59 || c > 59) return undefined;
  return a * 3600 + b * 60 + c;
}
