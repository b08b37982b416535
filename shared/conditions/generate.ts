import type { FieldKind } from '../records/fields';
import type { Condition, Operator } from '../types/config';
import {
  compareDirection,
  compareMoney,
  compareNumber,
  compareText,
  compileValueTest,
  equalsText,
  moneyExpectation,
  type ValueTest,
} from './compare';
import type { ConditionValue } from './values';

/** A compiled `where`, as `compile.ts` makes it. */
type RecordPredicate = (
  record: { readonly fields: Readonly<Record<string, unknown>>; readonly createdAtMs?: number },
  nowMs: number,
) => boolean;

/** One condition of a `where`, its values already read by the field's kind. */
export interface PlannedCondition {
  readonly field: string;
  readonly kind: FieldKind;
  readonly op: Operator | 'any';
  /** The readable values (at least one). */
  readonly values: readonly ConditionValue[];
}

/** The helpers generated code calls: fixed functions, so each call site stays monomorphic. */
export const HELPERS = {
  compareText,
  equalsText,
  compareNumber,
  compareMoney,
  compareDirection,
} as const;
export const HELPER_NAMES = Object.keys(HELPERS) as (keyof typeof HELPERS)[];

/** `c` (a comparison, maybe undefined) satisfies `op`, as source; only the five operators. */
function holdsSource(op: Operator, c: string): string {
  switch (op) {
    case '<>':
      return `${c} !== undefined && ${c} !== 0`;
    case '>':
      return `${c} !== undefined && ${c} > 0`;
    case '<':
      return `${c} !== undefined && ${c} < 0`;
    case '>=':
      return `${c} !== undefined && ${c} >= 0`;
    case '<=':
      return `${c} !== undefined && ${c} <= 0`;
    default:
      throw new TypeError(`not an operator: ${JSON.stringify(op)}`);
  }
}

/** A number as source: `String` writes every double, `Infinity` included, as JS reads it back. */
function numberSource(value: number): string {
  return `(${String(value)})`;
}

/** Above this many text values, equality looks the value up in a set instead of comparing each. */
const SET_LOOKUP_AT = 8;

/**
 * Source of one comparison of the value in `v` against one condition value; `constants`
 * collects what cannot be written as a literal (money). `undefined` for what the generator
 * leaves to the closure test (phones, which compare lists).
 */
function comparisonSource(
  kind: FieldKind,
  value: ConditionValue,
  constants: unknown[],
): string | undefined {
  switch (value.kind) {
    case 'money': {
      const expectation = moneyExpectation(value.value);
      constants.push(expectation);
      const call = `compareMoney(v, K[${constants.length - 1}])`;
      if (!expectation.fast) return call;
      // compareMoney's own first step, inline: a number against a short plain amount.
      const number = numberSource(expectation.number);
      return `(typeof v === 'number' ? (v < ${number} ? -1 : v > ${number} ? 1 : 0) : ${call})`;
    }
    case 'number':
    case 'duration':
      return `compareNumber(v, ${numberSource(value.value)})`;
    case 'direction':
      return `compareDirection(v, ${numberSource(value.value)})`;
    case 'text':
      if (kind === 'phone' || kind === 'phones') return undefined;
      return `compareText(v, ${JSON.stringify(value.value)})`;
  }
}

/**
 * Equality (or `<>`) of canonical phones in `v` (a phone, or a list of them) against canonical
 * condition values, as `comparePhone` decides it: canonicalising is idempotent, so a canonical
 * phone equals a value exactly when it is the same text; a list equals when one of its phones
 * does, and differs when it has phones and none is the value.
 */
function canonicalPhoneSource(condition: PlannedCondition, fail: string): string | undefined {
  if (condition.op !== 'any' && condition.op !== '<>') return undefined;
  if (!condition.values.every((value) => value.kind === 'text')) return undefined;
  const literals = condition.values.map((value) => JSON.stringify(value.value));
  if (condition.op === '<>') {
    const [literal] = literals;
    return `if (typeof v === 'object') { if (v.length === 0 || v.includes(${literal})) ${fail} } else if (v === ${literal}) ${fail}`;
  }
  const inList = literals.map((literal) => `v.includes(${literal})`).join(' || ');
  const equal = literals.map((literal) => `v === ${literal}`).join(' || ');
  return `if (typeof v === 'object') { if (!(${inList})) ${fail} } else if (!(${equal})) ${fail}`;
}

/**
 * Source that runs `fail` unless the value in `v` passes condition `index`. `folded`: source of
 * an expression true when `v` holds text already trimmed and lower-cased, whose equality is
 * then `===` (absent: equality always folds, `equalsText`); `canonical`: phones in `v` are
 * canonical (read by the record's normaliser), so their equality is `===` too.
 */
function testSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail: string,
  folded?: string,
  canonical = false,
): string {
  const fallback = `if (!T[${index}](v)) ${fail}`;
  if (canonical && (condition.kind === 'phone' || condition.kind === 'phones')) {
    const phones = canonicalPhoneSource(condition, fail);
    if (phones !== undefined) return phones;
  }
  const comparisons = condition.values.map((value) =>
    comparisonSource(condition.kind, value, constants),
  );
  if (comparisons.some((source) => source === undefined)) return fallback;
  const [first] = comparisons as string[];
  // Text is never incomparable: equality needs no ordering, and stops at the first difference.
  const equality = (value: ConditionValue) => {
    const literal = JSON.stringify(value.value);
    const call = `equalsText(v, ${literal})`;
    return folded === undefined ? call : `(${folded} ? v === ${literal} : ${call})`;
  };
  const textual = condition.values.every((value) => value.kind === 'text');
  if (condition.op === 'any' && textual && condition.values.length > SET_LOOKUP_AT) {
    // What compareText === 0 means, in one lookup: trimmed, lower-cased text.
    constants.push(new Set(condition.values.map((value) => value.value)));
    const set = `K[${constants.length - 1}]`;
    return `if (typeof v === 'object') { ${fallback} } else if (!${set}.has(String(v).trim().toLowerCase())) ${fail}`;
  }
  const equalities = textual
    ? condition.values.map(equality)
    : (comparisons as string[]).map((c) => `${c} === 0`);
  const scalar =
    condition.op === 'any'
      ? `if (!(${equalities.join(' || ')})) ${fail}`
      : condition.op === '<>' && textual
        ? `if (${equalities[0]}) ${fail}`
        : `c = ${first}; if (!(${holdsSource(condition.op, 'c')})) ${fail}`;
  // A list only comes from a phones field (left to the closure): kept exact all the same.
  return `if (typeof v === 'object') { ${fallback} } else { ${scalar} }`;
}

/** Source that loads a condition's field into `v`, or runs `fail` when the record lacks it. */
export type LoadSource = (field: string, fail: string) => string;

/** From a record `r` (its fields in `f`), as `generateWhere` reads. */
const recordLoad: LoadSource = (field, fail) =>
  field === 'age'
    ? `v = r.createdAtMs; if (v === undefined) ${fail} v = (nowMs - v) / 1000;`
    : `v = f[${JSON.stringify(field)}]; if (v === undefined || v === '') ${fail}`;

/**
 * Source of one condition: load the field, absent never holds (`fail`), then test it.
 * `folded` and `canonical`: what the load leaves in `v` (`testSource`).
 */
export function conditionSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail = 'return false;',
  load: LoadSource = recordLoad,
  folded?: string,
  canonical = false,
): string {
  const test = testSource(condition, index, constants, fail, folded, canonical);
  return `${load(condition.field, fail)}\n  ${test}`;
}

/**
 * Compiles a `where` whose conditions are planned (cheapest first) into one function of its
 * own, built with `new Function`: each rule's field loads and comparisons then have call sites
 * and inline caches of their own, where closures shared by every rule go megamorphic (about
 * three times slower on a 100k-record answer). The comparisons call the same helpers the
 * closure path does (`compare.ts`), and a property test holds both paths to the same answers.
 * Field names and values enter the source only as JSON literals.
 */
export function generateWhere(conditions: readonly PlannedCondition[]): RecordPredicate {
  const constants: unknown[] = [];
  const tests: ValueTest[] = conditions.map((c) => compileValueTest(c.kind, c.op, c.values));
  const body = [
    "'use strict';",
    'return function where(r, nowMs) {',
    '  const f = r.fields;',
    '  let v;',
    '  let c;',
    ...conditions.map((condition, index) => `  ${conditionSource(condition, index, constants)}`),
    '  return true;',
    '};',
  ].join('\n');
  const factory = new Function(...HELPER_NAMES, 'T', 'K', body) as (
    ...args: unknown[]
  ) => RecordPredicate;
  return factory(...HELPER_NAMES.map((name) => HELPERS[name]), tests, constants);
}

/** A condition's kind of test: equality against a list, or one operator and value. */
export function plannedOp(condition: Condition): Operator | 'any' {
  return condition.kind === 'equals' ? 'any' : condition.op;
}
