import {
  compareDecimal,
  type Decimal,
  formatDecimal,
  isShortPlainDecimal,
  parseDecimal,
  shortPlainDecimalValue,
} from '../money/decimal';
import type { FieldKind } from '../records/fields';
import { readDirection } from '../records/normalise';
import { canonicalPhone, isCanonicalPhone } from '../records/phone';
import type { FieldValue } from '../records/types';
import type { Operator } from '../types/config';
import type { ConditionValue } from './values';

/** `-1`, `0`, `1`, or `undefined` when the two cannot be compared. */
export type Comparison = -1 | 0 | 1 | undefined;

/** One record value against one condition value, with everything about the latter precomputed. */
type Comparator = (actual: string | number) => Comparison;

function sign(difference: number): -1 | 0 | 1 {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

/**
 * Two non-negative amounts in canonical text (`formatDecimal`'s: no leading zeros, no
 * trailing fraction zeros), compared as text: the longer whole part is larger, then digit by
 * digit. No number is built, which a record's money field (always canonical) would otherwise
 * cost per rule. `undefined` when `left` is not canonical and non-negative.
 */
function compareCanonical(left: string, right: string): Comparison {
  const length = left.length;
  let dot = length;
  for (let index = 0; index < length; index += 1) {
    const code = left.charCodeAt(index);
    if (code === 46 && dot === length) dot = index;
    else if (code < 48 || code > 57) return undefined;
  }
  if (dot === 0 || dot === length - 1) return undefined;
  if (dot > 1 && left.charCodeAt(0) === 48) return undefined;
  if (dot < length && left.charCodeAt(length - 1) === 48) return undefined;
  const rightDot = right.indexOf('.');
  const rightWhole = rightDot === -1 ? right.length : rightDot;
  if (dot !== rightWhole) return dot < rightWhole ? -1 : 1;
  // Same whole length: code-unit order is digit order, and without trailing zeros a fraction
  // that is a prefix of the other is the smaller.
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A money condition value with what its comparisons need precomputed. */
export interface MoneyExpectation {
  readonly decimal: Decimal;
  /** Canonical text (`formatDecimal`). */
  readonly text: string;
  readonly number: number;
  /** Short and plain: a float comparison is exact. */
  readonly fast: boolean;
  /** Non-negative: canonical record amounts compare as text. */
  readonly canonical: boolean;
}

/** Precomputes a money condition value for `compareMoney`. */
export function moneyExpectation(decimal: Decimal): MoneyExpectation {
  const text = formatDecimal(decimal);
  return {
    decimal,
    text,
    number: Number(text),
    fast: isShortPlainDecimal(text),
    canonical: text.charCodeAt(0) !== 45,
  };
}

/**
 * Money, exactly. Two decimals of at most 15 characters are distinct doubles in the same order
 * (rounding to the nearest double is monotonic and 15 significant digits never collide), so
 * the common case is a float comparison; anything longer or unusual takes the BigInt path.
 */
export function compareMoney(actual: string | number, expected: MoneyExpectation): Comparison {
  // A number read from JSON is its shortest text, which a double comparison orders exactly
  // against a short plain value (no two such decimals share a double, DBL_DIG 15).
  if (typeof actual === 'number' && expected.fast) return sign(actual - expected.number);
  if (expected.canonical && typeof actual === 'string') {
    const result = compareCanonical(actual, expected.text);
    if (result !== undefined) return result;
  }
  if (expected.fast && typeof actual === 'string') {
    const number = shortPlainDecimalValue(actual);
    if (number !== undefined) return sign(number - expected.number);
  }
  const decimal = parseDecimal(actual);
  return decimal ? compareDecimal(decimal, expected.decimal) : undefined;
}

/** A number or duration against a number. */
export function compareNumber(actual: string | number, value: number): Comparison {
  const number = typeof actual === 'number' ? actual : Number(actual);
  return Number.isFinite(number) ? sign(number - value) : undefined;
}

/** A direction (1, 2, or its name) against 1 or 2. */
export function compareDirection(actual: string | number, value: number): Comparison {
  const direction = typeof actual === 'number' ? actual : readDirection(actual);
  return direction === 1 || direction === 2 ? sign(direction - value) : undefined;
}

/** A phone against a canonical phone. */
export function comparePhone(actual: string | number, right: string): Comparison {
  // Record phones are canonical already: no regex and copy per record per rule.
  const left =
    typeof actual === 'string' && isCanonicalPhone(actual) ? actual : canonicalPhone(actual);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A whole number as text: `0`, or digits that do not start with 0, perhaps after a `-`. */
const WHOLE_NUMBER = /^(?:0|-?[1-9]\d*)$/;

/**
 * Two whole numbers written as text, in numeric order, of any length: the API's integer ids
 * (`user_id`, `id`) are text fields, and `user_id > 100` must not hold for `99`.
 */
function compareWholeNumbers(left: string, right: string): -1 | 0 | 1 {
  const negative = left.charCodeAt(0) === MINUS;
  if (negative !== (right.charCodeAt(0) === MINUS)) return negative ? -1 : 1;
  const magnitude =
    left.length !== right.length
      ? sign(left.length - right.length)
      : left < right
        ? -1
        : left > right
          ? 1
          : 0;
  return negative ? (-magnitude as -1 | 0 | 1) : magnitude;
}

const MINUS = 45;

/**
 * Text, case-insensitively and trimmed, against lower-cased text; two whole numbers (`99`,
 * `100`) in numeric order. Different text is never equal, so only the order of numbers changes.
 */
export function compareText(actual: string | number, right: string): Comparison {
  if (typeof actual === 'string') {
    if (actual === right) return 0;
    if (!WHOLE_NUMBER.test(right)) {
      const folded = compareAsciiFolded(actual, right);
      if (folded !== undefined) return folded;
    }
  }
  const left = String(actual).trim().toLowerCase();
  if (WHOLE_NUMBER.test(right) && WHOLE_NUMBER.test(left)) return compareWholeNumbers(left, right);
  return left < right ? -1 : left > right ? 1 : 0;
}

const UPPER_A = 65;
const UPPER_Z = 90;
const SPACE = 32;
const TAB = 9;
const CARRIAGE_RETURN = 13;
const LAST_ASCII = 127;

function isAsciiSpace(code: number): boolean {
  return code === SPACE || (code >= TAB && code <= CARRIAGE_RETURN);
}

/**
 * `left.trim().toLowerCase()` against `right` (already lower case) without building the
 * lower-cased copy, one per record per rule otherwise. Only for ASCII text with nothing to
 * trim, where lower-casing is `A-Z -> a-z`; `undefined` sends anything else to the full path.
 */
function compareAsciiFolded(left: string, right: string): Comparison {
  const length = left.length;
  if (length === 0) return right.length === 0 ? 0 : -1;
  if (isAsciiSpace(left.charCodeAt(0)) || isAsciiSpace(left.charCodeAt(length - 1))) {
    return undefined;
  }
  const shared = Math.min(length, right.length);
  let result: -1 | 0 | 1 = 0;
  for (let index = 0; index < length; index += 1) {
    let code = left.charCodeAt(index);
    if (code > LAST_ASCII) return undefined;
    if (result !== 0 || index >= shared) continue;
    if (code >= UPPER_A && code <= UPPER_Z) code += 32;
    const other = right.charCodeAt(index);
    if (code !== other) result = code < other ? -1 : 1;
  }
  if (result !== 0) return result;
  return length < right.length ? -1 : length > right.length ? 1 : 0;
}

/**
 * Whether text equals lower-cased text as `compareText` sees it, leaving at the first ASCII
 * character that differs: once every character before it was ASCII, lower-casing cannot make
 * the rest line up again. Non-ASCII text or text to trim takes `compareText`.
 */
export function equalsText(actual: string | number, right: string): boolean {
  if (actual === right) return true;
  if (typeof actual === 'string' && actual.length > 0 && !isAsciiSpace(actual.charCodeAt(0))) {
    const length = actual.length;
    for (let index = 0; index < length; index += 1) {
      let code = actual.charCodeAt(index);
      if (code > LAST_ASCII) return compareText(actual, right) === 0;
      if (code >= UPPER_A && code <= UPPER_Z) code += 32;
      if (code !== right.charCodeAt(index)) {
        // Past the end of `right`, or a different letter: unequal, unless what is left is
        // whitespace to trim (then `compareText` decides).
        return isAsciiSpace(code) ? compareText(actual, right) === 0 : false;
      }
    }
    return length === right.length;
  }
  return compareText(actual, right) === 0;
}

function comparator(kind: FieldKind, expected: ConditionValue): Comparator {
  switch (expected.kind) {
    case 'money': {
      const money = moneyExpectation(expected.value);
      return (actual) => compareMoney(actual, money);
    }
    case 'number':
    case 'duration': {
      const value = expected.value;
      return (actual) => compareNumber(actual, value);
    }
    case 'direction': {
      const value = expected.value;
      return (actual) => compareDirection(actual, value);
    }
    case 'text': {
      const right = expected.value;
      // Canonicalising is idempotent, so a record phone compares the same however it came.
      if (kind === 'phone' || kind === 'phones') return (actual) => comparePhone(actual, right);
      return (actual) => compareText(actual, right);
    }
  }
}

function holds(op: Operator, comparison: -1 | 0 | 1): boolean {
  switch (op) {
    case '>':
      return comparison > 0;
    case '<':
      return comparison < 0;
    case '>=':
      return comparison >= 0;
    case '<=':
      return comparison <= 0;
    case '<>':
      return comparison !== 0;
  }
}

/** Does one present field value satisfy the condition? */
export type ValueTest = (actual: FieldValue) => boolean;

/**
 * Compiles `op expected` for a field of `kind` into a test of one present value, lists (a
 * phone list) included: `any` (equality, a list of values) holds when some element equals
 * some value; `<>` only when every element is comparable and differs; other operators when
 * some element satisfies them. Built once per rule, so the per-record work is the comparison.
 */
export function compileValueTest(
  kind: FieldKind,
  op: Operator | 'any',
  expected: readonly ConditionValue[],
): ValueTest {
  const comparators = expected.map((value) => comparator(kind, value));
  const [first] = comparators;
  if (first === undefined) return () => false;
  const scalar: (actual: string | number) => boolean =
    op === 'any'
      ? (actual) => {
          for (const compare of comparators) if (compare(actual) === 0) return true;
          return false;
        }
      : op === '<>'
        ? (actual) => {
            const result = first(actual);
            return result !== undefined && result !== 0;
          }
        : (actual) => {
            const result = first(actual);
            return result !== undefined && holds(op, result);
          };
  return (actual) => {
    if (!Array.isArray(actual)) return scalar(actual as string | number);
    if (actual.length === 0) return false;
    // A destination list is "not equal" only when none of its numbers is the value.
    return op === '<>' ? actual.every(scalar) : actual.some(scalar);
  };
}
