import type { Condition, Operator } from '../config/types';
import type { FieldKind } from '../records/fields';
import {
  compareDirection,
  compareMoney,
  compareNumber,
  compareText,
  compileValueTest,
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
const HELPERS = { compareText, compareNumber, compareMoney, compareDirection } as const;
const HELPER_NAMES = Object.keys(HELPERS) as (keyof typeof HELPERS)[];

/** `c` (a comparison, maybe undefined) satisfies `op`, as source. */
function holdsSource(op: Operator, c: string): string {
  if (op === '<>') return `${c} !== undefined && ${c} !== 0`;
  return `${c} !== undefined && ${c} ${op} 0`;
}

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
    case 'money':
      constants.push(moneyExpectation(value.value));
      return `compareMoney(v, K[${constants.length - 1}])`;
    case 'number':
    case 'duration':
      return `compareNumber(v, ${JSON.stringify(value.value)})`;
    case 'direction':
      return `compareDirection(v, ${value.value})`;
    case 'text':
      if (kind === 'phone' || kind === 'phones') return undefined;
      return `compareText(v, ${JSON.stringify(value.value)})`;
  }
}

/** Source that returns false unless the value in `v` passes condition `index`. */
function testSource(condition: PlannedCondition, index: number, constants: unknown[]): string {
  const fallback = `if (!T[${index}](v)) return false;`;
  const comparisons = condition.values.map((value) =>
    comparisonSource(condition.kind, value, constants),
  );
  if (comparisons.some((source) => source === undefined)) return fallback;
  const [first] = comparisons as string[];
  const scalar =
    condition.op === 'any'
      ? `if (!(${(comparisons as string[]).map((c) => `${c} === 0`).join(' || ')})) return false;`
      : `c = ${first}; if (!(${holdsSource(condition.op, 'c')})) return false;`;
  // A list only comes from a phones field (left to the closure): kept exact all the same.
  return `if (typeof v === 'object') { ${fallback} } else { ${scalar} }`;
}

/** Source of one condition: load the field, absent never holds, then test it. */
function conditionSource(condition: PlannedCondition, index: number, constants: unknown[]): string {
  const load =
    condition.field === 'age'
      ? 'v = r.createdAtMs; if (v === undefined) return false; v = (nowMs - v) / 1000;'
      : `v = f[${JSON.stringify(condition.field)}]; if (v === undefined || v === '') return false;`;
  return `${load}\n  ${testSource(condition, index, constants)}`;
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
