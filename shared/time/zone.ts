import { fourDigits, twoDigits } from './digits';
import {
  assertTimeZone,
  cacheFor,
  DAY_MS,
  intlOffsetMs,
  resolveLocal,
  tableOf,
  tableSpan,
  type ZoneTable,
  zoneOffsetMs,
} from './offsets';

/**
 * The API's wall-clock timestamps in a configured IANA zone: reading both `created_at` shapes,
 * writing `Y-m-d H:i:s` for queries and a zone-labelled form for people. Offsets, and the
 * rule for DST gaps and overlaps, live in `offsets.ts`.
 */

export { parseCallTime } from './call-time';
export {
  assertTimeZone,
  DEFAULT_TIME_ZONE,
  isTimeZone,
  useZoneTable,
  type ZoneTable,
  zonedTimeToEpoch,
  zoneOffsetMs,
} from './offsets';

const MINUTE_MS = 60_000;
const abbreviations = new Map<string, string>();

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
/** `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]` followed by `Z` or `±HH:MM`. */
const EXPLICIT_OFFSET =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const TIME_SHAPE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/;
/** zone -> date text -> its day, or null when the text is not a date. */
const dayCache = new Map<string, Map<string, LocalDay | null>>();

function readDay(text: string, zone: string): LocalDay | undefined {
  const cache = cacheFor(dayCache, zone);
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
  if (month === undefined) return null;
  return localDay(year, month, date, zone);
}

/** A calendar date in `zone`, or null when there is no such date. */
function localDay(year: number, month: number, date: number, zone: string): LocalDay | null {
  if (month < 1 || month > 12) return null;
  if (date < 1 || date > daysInMonth(year, month)) return null;
  const localMs = Date.UTC(year, month - 1, date);
  assertTimeZone(zone);
  const first = localMs - resolveLocal(localMs, zone);
  const last = localMs + DAY_MS - 1000 - resolveLocal(localMs + DAY_MS - 1000, zone);
  return { localMs, offset: first === last ? first : undefined };
}

/** zone -> `year * 10000 + month * 100 + date` -> its day: the fixed-width path's cache. */
const numericDayCache = new Map<string, Map<number, LocalDay | null>>();

function dayByNumber(year: number, month: number, date: number, zone: string): LocalDay | null {
  const cache = cacheFor(numericDayCache, zone);
  const key = year * 10_000 + month * 100 + date;
  let day = cache.get(key);
  if (day === undefined) {
    day = localDay(year, month, date, zone);
    cache.set(key, day);
  }
  return day;
}

const HYPHEN = 45;
const SPACE = 32;
const UPPER_T = 84;

/** Three-letter month names by their letters folded to a number (`shortMonth`). */
const SHORT_MONTHS = new Map(
  Object.entries(MONTHS)
    .filter(([name]) => name.length === 3)
    .map(([name, month]) => [letterCode(name, 0), month]),
);

/** Three ASCII letters at `at`, case folded, as one number; -1 when they are not letters. */
function letterCode(text: string, at: number): number {
  let code = 0;
  for (let index = at; index < at + 3; index += 1) {
    const folded = text.charCodeAt(index) | 32;
    if (folded < 97 || folded > 122) return -1;
    code = code * 32 + (folded - 96);
  }
  return code;
}

/**
 * The two shapes the API sends, exactly as it sends them (`YYYY-MM-DD HH:MM:SS`,
 * `DD-Mon-YYYY HH:MM:SS`, a `T` allowed for the space), read by character codes with the day
 * cached under a number: no slice, regex or string hashing per record. `undefined` for
 * anything else or anything invalid, which the general path then reads (and rejects).
 */
function fixedTimestamp(value: string, zone: string): number | undefined {
  let year: number;
  let month: number;
  let date: number;
  let at: number;
  if (value.length === 19 && value.charCodeAt(4) === HYPHEN && value.charCodeAt(7) === HYPHEN) {
    year = fourDigits(value, 0);
    month = twoDigits(value, 5);
    date = twoDigits(value, 8);
    at = 10;
  } else if (
    value.length === 20 &&
    value.charCodeAt(2) === HYPHEN &&
    value.charCodeAt(6) === HYPHEN
  ) {
    date = twoDigits(value, 0);
    month = SHORT_MONTHS.get(letterCode(value, 3)) ?? -1;
    year = fourDigits(value, 7);
    at = 11;
  } else {
    return undefined;
  }
  const separator = value.charCodeAt(at);
  if ((separator !== SPACE && separator !== UPPER_T) || year < 0 || month < 0 || date < 0) {
    return undefined;
  }
  const time = readTimeOfDay(value, at + 1);
  if (time === undefined) return undefined;
  const day = dayByNumber(year, month, date, zone);
  if (!day) return undefined;
  const local = day.localMs + time;
  return day.offset === undefined ? resolveLocal(local, zone) : local - day.offset;
}

/** `HH:MM:SS` by character codes (the common case), other shapes by regex; ms of the day. */
function readTimeOfDay(value: string, start: number): number | undefined {
  if (value.length - start === 8 && value.charCodeAt(start + 2) === 58) {
    const h = twoDigits(value, start);
    const m = twoDigits(value, start + 3);
    const s = twoDigits(value, start + 6);
    if (value.charCodeAt(start + 5) !== 58 || h < 0 || m < 0 || s < 0) return undefined;
    if (h > 23 || m > 59 || s > 59) return undefined;
    return h * 3_600_000 + m * 60_000 + s * 1000;
  }
  const text = value.slice(start);
  const match = TIME_SHAPE.exec(text);
  if (!match) return undefined;
  const h = Number(match[1]);
  const m = Number(match[2]);
  const s = Number(match[3] ?? 0);
  if (h > 23 || m > 59 || s > 59) return undefined;
  return h * 3_600_000 + m * 60_000 + s * 1000 + Number((match[4] ?? '').padEnd(3, '0'));
}

/**
 * Reads an API timestamp as wall-clock time in `zone`: `YYYY-MM-DD HH:MM:SS` or
 * `DD-Mon-YYYY HH:MM:SS` (month name in any case, short or full). Seconds may be left out,
 * a `T` may stand for the space, and a date alone means midnight. Returns UTC epoch ms, or
 * `undefined` when the text is not such a timestamp or names an impossible date.
 * Throws `TimeZoneError` for an unknown zone.
 *
 * Hot path (100k records per body): the API's own two shapes are read by character codes
 * with each day's offset cached under a number; elsewhere each distinct date is parsed once
 * per zone.
 */
export function parseApiTimestamp(text: string, zone: string): number | undefined {
  const fixed = fixedTimestamp(text, zone);
  if (fixed !== undefined) return fixed;
  const value = text.trim();
  // A timestamp that carries its own offset (`...Z`, `...+05:30`) needs no zone: the drift
  // the API is known for may one day include ISO-8601 instants.
  if (EXPLICIT_OFFSET.test(value)) return parseOffsetTimestamp(value);
  let split = value.indexOf(' ', 8);
  if (split === -1) split = value.indexOf('T', 8);
  const day = readDay(split === -1 ? value : value.slice(0, split), zone);
  if (!day) return undefined;
  if (split === -1)
    return day.offset === undefined ? resolveLocal(day.localMs, zone) : day.localMs - day.offset;
  const time = readTimeOfDay(value, split + 1);
  if (time === undefined) return undefined;
  const local = day.localMs + time;
  return day.offset === undefined ? resolveLocal(local, zone) : local - day.offset;
}

/**
 * An ISO-8601 timestamp with its own offset (`2026-11-21T10:00:00+05:30`, a space for the `T`
 * too) as UTC epoch ms; `undefined` when it is not one or names an impossible date or time
 * (`Date.parse` would roll 2026-02-30 over into March).
 */
export function parseOffsetTimestamp(text: string): number | undefined {
  const value = text.trim();
  const parts = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})/i.exec(value);
  if (parts === null) return undefined;
  const [year, month, day, hour, minute] = parts.slice(1).map(Number) as number[];
  const lastDay = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate();
  if (
    (month as number) < 1 ||
    (month as number) > 12 ||
    (day as number) < 1 ||
    (day as number) > lastDay ||
    (hour as number) > 23 ||
    (minute as number) > 59
  ) {
    return undefined;
  }
  const ms = Date.parse(value.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
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
  const span = tableSpan(epochMs, zone);
  const named = span === -1 ? undefined : tableOf(zone)?.names[span];
  if (named !== undefined) return named;
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

/** How often `zoneTable` asks Intl for the offset; no zone changes its offset twice in 12 h. */
const TABLE_STEP_MS = 12 * 3_600_000;

/**
 * `zone`'s offsets and short names from `fromMs` to `toMs` (whole seconds), with Intl: each
 * change found to the second, between probes 12 hours apart. `useZoneTable` then answers
 * `zoneOffsetMs`, `formatInZone` and the zone checks in that range as Intl would, without it
 * (synth makes one for the configured zone, `shared/config/embedded.ts`).
 *
 * @throws TimeZoneError for an unknown zone.
 */
export function zoneTable(zone: string, fromMs: number, toMs: number): ZoneTable {
  let current = intlOffsetMs(fromMs, zone);
  const starts = [fromMs];
  const offsets = [current];
  const names = [abbreviation(fromMs, zone, current)];
  let known = fromMs;
  while (known < toMs - 1000) {
    const probe = Math.min(known + TABLE_STEP_MS, toMs - 1000);
    if (intlOffsetMs(probe, zone) === current) {
      known = probe;
      continue;
    }
    // The first second after `known` whose offset is no longer `current`.
    let low = known;
    let high = probe;
    while (high - low > 1000) {
      const middle = low + Math.floor((high - low) / 2000) * 1000;
      if (intlOffsetMs(middle, zone) === current) low = middle;
      else high = middle;
    }
    current = intlOffsetMs(high, zone);
    starts.push(high);
    offsets.push(current);
    names.push(abbreviation(high, zone, current));
    known = high;
  }
  return { zone, fromMs, toMs, starts, offsets, names };
}
