import { formatDecimal, parseDecimal } from '../money/decimal';
import { parseApiTimestamp, parseCallTime } from '../time/zone';
import { boundedText } from './bounded';
import type { FieldKind } from './fields';
import { canonicalPhone, canonicalPhones } from './phone';
import type { FieldValue } from './types';

// A Map, not an object: a text such as `__proto__` or `constructor` must read as no direction.
const DIRECTIONS: ReadonlyMap<string, 1 | 2> = new Map([
  ['1', 1],
  ['2', 2],
  ['inbound', 1],
  ['outbound', 2],
  ['in', 1],
  ['out', 2],
]);

/** Reads `1`, `2`, `inbound`, `outbound` (any case); `undefined` otherwise. */
export function readDirection(input: unknown): 1 | 2 | undefined {
  if (typeof input !== 'string' && typeof input !== 'number') return undefined;
  return DIRECTIONS.get(String(input).trim().toLowerCase());
}

/** A value present but unreadable as its field's kind. */
export const INVALID: unique symbol = Symbol('invalid');
export type Normalised = FieldValue | undefined | typeof INVALID;

/**
 * Canonical decimal text, as `formatDecimal(parseDecimal(x))` writes it, without BigInt or
 * regex for the plain shapes the API sends (`"1500.00"`, `1500.5`): the per-record path must
 * stay cheap. Anything unusual (separators, exponents, leading zeros) takes the exact path.
 */
export function canonicalMoney(value: string | number): string | undefined {
  if (typeof value === 'number') {
    if (value === 0) return '0';
    const cents = centsText(value);
    if (cents !== undefined) return cents;
    const text = String(value);
    if (!text.includes('e')) return text;
  } else {
    const fast = canonicalPlain(value);
    if (fast !== undefined) return fast;
  }
  const decimal = parseDecimal(value);
  return decimal && formatDecimal(decimal);
}

/**
 * `String(value)` for a JSON amount with at most two decimals, from integer cents: integer
 * text is several times cheaper than shortest-double text. Below 1e13 a double is closer than
 * 0.005 to exactly one two-decimal number, so that number is also its shortest text.
 */
function centsText(value: number): string | undefined {
  const cents = Math.round(value * 100);
  if (cents / 100 !== value || Math.abs(value) >= 1e13) return undefined;
  const magnitude = cents < 0 ? -cents : cents;
  const whole = `${cents < 0 ? '-' : ''}${Math.floor(magnitude / 100)}`;
  const fraction = magnitude % 100;
  if (fraction === 0) return whole;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

const ZERO = 48;
const NINE = 57;
const DOT = 46;
const MINUS = 45;

/** `"-12.340"` -> `"-12.34"`; `undefined` for any text that is not plainly `-?D+(.D+)?`. */
function canonicalPlain(text: string): string | undefined {
  const length = text.length;
  let index = text.charCodeAt(0) === MINUS ? 1 : 0;
  const wholeStart = index;
  let dot = -1;
  for (; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === DOT && dot === -1) dot = index;
    else if (code < ZERO || code > NINE) return undefined;
  }
  const wholeEnd = dot === -1 ? length : dot;
  if (wholeEnd === wholeStart || dot === length - 1) return undefined;
  if (wholeEnd - wholeStart > 1 && text.charCodeAt(wholeStart) === ZERO) return undefined;
  let end = length;
  if (dot !== -1) {
    while (end > dot + 1 && text.charCodeAt(end - 1) === ZERO) end -= 1;
    if (end === dot + 1) end = dot;
  }
  const result = end === length ? text : text.slice(0, end);
  return result === '-0' ? '0' : result;
}

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A text field: trimmed, case kept; numbers and booleans as their text. A number JSON cannot
 * write (NaN, Infinity) is unreadable, as the zod schema found it.
 */
export function normaliseText(value: unknown): Normalised {
  if (typeof value === 'string') return value.trim();
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : INVALID;
  if (typeof value === 'boolean') return String(value);
  return INVALID;
}

/** A money field: canonical decimal text; an empty string is absent. */
export function normaliseMoney(value: unknown): Normalised {
  if (value === null || value === undefined) return undefined;
  if (!isScalar(value)) return INVALID;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  return canonicalMoney(value) ?? INVALID;
}

/** A time field: epoch ms of an API timestamp read in `zone`; an empty string is absent. */
export function normaliseTime(value: unknown, zone: string): Normalised {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return INVALID;
  if (value.trim() === '') return undefined;
  return parseApiTimestamp(value, zone) ?? INVALID;
}

/**
 * Normalises one field value by kind (docs/architecture.md, `records/fields.ts`). `null`, missing
 * and (except for text) empty strings are absent (`undefined`); a value that is present but
 * unreadable is `INVALID`. Text keeps its letter case: comparisons lower-case it.
 */
export function normaliseValue(kind: FieldKind, value: unknown, zone: string): Normalised {
  if (kind === 'text') return normaliseText(value);
  if (kind === 'money') return normaliseMoney(value);
  if (kind === 'time') return normaliseTime(value, zone);
  if (value === null || value === undefined) return undefined;
  if (kind === 'phones' && Array.isArray(value)) {
    if (!value.every(isScalar)) return INVALID;
    const phones = value.flatMap((item) => canonicalPhones(item));
    return phones.length === 0 ? undefined : phones;
  }
  if (!isScalar(value)) return INVALID;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  switch (kind) {
    case 'duration':
      return parseCallTime(value) ?? INVALID;
    case 'number': {
      const number = Number(value);
      return Number.isFinite(number) ? number : INVALID;
    }
    case 'direction':
      return readDirection(value) ?? INVALID;
    case 'phone':
      return canonicalPhone(value);
    case 'phones': {
      const phones = canonicalPhones(value);
      return phones.length === 0 ? undefined : phones;
    }
  }
}

/**
 * The gateway of a raw payment, with its documented alias: `gateway`, or when that is absent
 * or blank a readable `payment_gateway` (an unreadable alias is ignored, as `applyAliases`
 * ignores it). `INVALID` when `gateway` itself is unreadable.
 */
export function readGateway(raw: Readonly<Record<string, unknown>>): Normalised {
  const gateway = normaliseText(raw.gateway);
  if (gateway !== undefined && gateway !== '') return gateway;
  const alias = normaliseText(raw.payment_gateway);
  return alias === undefined || alias === INVALID ? gateway : alias;
}

/**
 * A record identity: a non-empty ID, number or string, kept as text (a prefix is part of it);
 * one longer than `MAX_KEPT_LENGTH` is kept as its start and a digest (`boundedText`).
 */
export function readIdentity(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  // The API sends an id as a string in one answer and a number in the next: a JSON number
  // loses the trailing zeros of `"1763700259.430"`, so the string form drops them too and
  // both name one call. Only a trailing 0 can be dropped: most ids need no regex at all.
  if (text.charCodeAt(text.length - 1) !== ZERO) return boundedText(text);
  return boundedText(DECIMAL_ID.test(text) ? text.replace(/\.?0+$/, '') : text);
}

/** An id shaped like a decimal number with a fraction, e.g. `1763700259.430`. */
const DECIMAL_ID = /^\d+\.\d+$/;
