import type { Operator } from '../config/types';
import { compareDecimal, formatDecimal, parseDecimal } from '../money/decimal';
import type { FieldKind } from '../records/fields';
import { canonicalPhone } from '../records/phone';
import type { FieldValue } from '../records/types';
import { type ConditionValue, readDirection } from './values';

/** `-1`, `0`, `1`, or `undefined` when the two cannot be compared. */
export type Comparison = -1 | 0 | 1 | undefined;

/** One record value against one condition value, with everything about the latter precomputed. */
type Comparator = (actual: string | number) => Comparison;

/** Decimal digits a double tells apart exactly: plain decimals this long compare as doubles. */
const SAFE_DECIMAL_LENGTH = 15;

function sign(difference: number): -1 | 0 | 1 {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

/** `-?D+(.D+)?` and short enough that `Number` keeps it exact relative to its neighbours. */
function isShortPlainDecimal(text: string): boolean {
  const length = text.length;
  if (length === 0 || length > SAFE_DECIMAL_LENGTH) return false;
  let index = text.charCodeAt(0) === 45 ? 1 : 0;
  let digits = 0;
  let dot = false;
  for (; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 46 && !dot && digits > 0) dot = true;
    else if (code >= 48 && code <= 57) digits += 1;
    else return false;
  }
  return digits > 0 && text.charCodeAt(length - 1) !== 46;
}

/**
 * Money, exactly. Two decimals of at most 15 characters are distinct doubles in the same order
 * (rounding to the nearest double is monotonic and 15 significant digits never collide), so
 * the common case is a float comparison; anything longer or unusual takes the BigInt path.
 */
function moneyComparator(expected: ConditionValue & { kind: 'money' }): Comparator {
  const text = formatDecimal(expected.value);
  const fast = isShortPlainDecimal(text);
  const number = Number(text);
  return (actual) => {
    if (fast && typeof actual === 'string' && isShortPlainDecimal(actual)) {
      return sign(Number(actual) - number);
    }
    const decimal = parseDecimal(actual);
    return decimal ? compareDecimal(decimal, expected.value) : undefined;
  };
}

function comparator(kind: FieldKind, expected: ConditionValue): Comparator {
  switch (expected.kind) {
    case 'money':
      return moneyComparator(expected);
    case 'number':
    case 'duration': {
      const value = expected.value;
      return (actual) => {
        const number = typeof actual === 'number' ? actual : Number(actual);
        return Number.isFinite(number) ? sign(number - value) : undefined;
      };
    }
    case 'direction': {
      const value = expected.value;
      return (actual) => {
        const direction = typeof actual === 'number' ? actual : readDirection(actual);
        return direction === 1 || direction === 2 ? sign(direction - value) : undefined;
      };
    }
    case 'text': {
      const right = expected.value;
      // Canonicalising is idempotent, so a record phone compares the same however it came.
      const read =
        kind === 'phone' || kind === 'phones'
          ? (actual: string | number) => canonicalPhone(actual)
          : (actual: string | number) => String(actual).trim().toLowerCase();
      return (actual) => {
        const left = read(actual);
        return left < right ? -1 : left > right ? 1 : 0;
      };
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
