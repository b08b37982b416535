import type { Condition, Operator } from '../config/types';
import type { FieldKind } from '../records/fields';
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
const HELPERS = {
  compareText,
  equalsText,
  compareNumber,
  compareMoney,
  compareDirection,
} as const;
const HELPER_NAMES = Object.keys(HELPERS) as (keyof typeof HELPERS)[];

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
    case 'money':
      constants.push(moneyExpectation(value.value));
      return `compareMoney(v, K[${constants.length - 1}])`;
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

/** Source that runs `fail` unless the value in `v` passes condition `index`. */
function testSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail: string,
): string {
  const fallback = `if (!T[${index}](v)) ${fail}`;
  const comparisons = condition.values.map((value) =>
    comparisonSource(condition.kind, value, constants),
  );
  if (comparisons.some((source) => source === undefined)) return fallback;
  const [first] = comparisons as string[];
  // Text is never incomparable: equality needs no ordering, and stops at the first difference.
  const equality = (c: string) => c.replace(/^compareText\(/, 'equalsText(');
  const textual = condition.values.every((value) => value.kind === 'text');
  if (condition.op === 'any' && textual && condition.values.length > SET_LOOKUP_AT) {
    // What compareText === 0 means, in one lookup: trimmed, lower-cased text.
    constants.push(new Set(condition.values.map((value) => value.value)));
    const set = `K[${constants.length - 1}]`;
    return `if (typeof v === 'object') { ${fallback} } else if (!${set}.has(String(v).trim().toLowerCase())) ${fail}`;
  }
  const scalar =
    condition.op === 'any'
      ? `if (!(${(comparisons as string[]).map((c) => (textual ? equality(c) : `${c} === 0`)).join(' || ')})) ${fail}`
      : condition.op === '<>' && textual
        ? `if (${equality(first as string)}) ${fail}`
        : `c = ${first}; if (!(${holdsSource(condition.op, 'c')})) ${fail}`;
  // A list only comes from a phones field (left to the closure): kept exact all the same.
  return `if (typeof v === 'object') { ${fallback} } else { ${scalar} }`;
}

/** Source of one condition: load the field, absent never holds (`fail`), then test it. */
function conditionSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail = 'return false;',
): string {
  const load =
    condition.field === 'age'
      ? `v = r.createdAtMs; if (v === undefined) ${fail} v = (nowMs - v) / 1000;`
      : `v = f[${JSON.stringify(condition.field)}]; if (v === undefined || v === '') ${fail}`;
  return `${load}\n  ${testSource(condition, index, constants, fail)}`;
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

/** Rules one `generateScan` pass takes: their tracked flags are the bits of one small integer. */
export const MAX_SCAN_RULES = 30;

/** What a scan hands each rule's records to: the rule's collector. */
export interface ScanSink<R> {
  /** `index`: the record's position in `records`. */
  add(record: R, matches: boolean, index: number): void;
}

/**
 * One pass over the records for every rule of a source, generated as a single function: each
 * rule's conditions inline in the loop (a labelled block per rule, left at the first condition
 * that fails), so no call is made per record and rule, and a field several rules read stays in
 * the cache. A record goes to a rule's sink when it matches, or when `tracked` flags its key
 * for that rule (bit `n` for rule `n`, so at most `MAX_SCAN_RULES` rules a pass: the rule's
 * instances must see it either way).
 * `undefined` in `plans`: a rule that can never match. Same answers as the rules' `where`
 * functions (property-tested).
 */
export function generateScan<
  R extends { readonly key: string; readonly fields: object; readonly createdAtMs?: number },
>(
  plans: readonly (readonly PlannedCondition[] | undefined)[],
): (
  records: readonly R[],
  nowMs: number,
  sinks: readonly ScanSink<R>[],
  tracked: ReadonlyMap<string, number> | undefined,
) => void {
  if (plans.length > MAX_SCAN_RULES) {
    throw new RangeError(`a scan takes at most ${MAX_SCAN_RULES} rules, not ${plans.length}`);
  }
  const constants: unknown[] = [];
  const tests: ValueTest[] = [];
  const rules = plans.map((plan, rule) => {
    const wanted = `(w & ${1 << rule}) !== 0`;
    const deliver = `if (m || (${wanted})) s${rule}.add(r, m, i);`;
    if (plan === undefined) return `if (${wanted}) s${rule}.add(r, false, i);`;
    const label = `rule${rule}`;
    const conditions = plan.map((condition) => {
      tests.push(compileValueTest(condition.kind, condition.op, condition.values));
      return conditionSource(condition, tests.length - 1, constants, `break ${label};`);
    });
    return `m = false;\n    ${label}: {\n      ${conditions.join('\n      ')}\n      m = true;\n    }\n    ${deliver}`;
  });
  const body = [
    "'use strict';",
    'return function scan(records, nowMs, S, tracked) {',
    ...plans.map((_, rule) => `  const s${rule} = S[${rule}];`),
    '  let v;',
    '  let c;',
    '  let m;',
    '  for (let i = 0; i < records.length; i += 1) {',
    '    const r = records[i];',
    '    const f = r.fields;',
    '    const w = tracked === undefined ? 0 : (tracked.get(r.key) ?? 0);',
    ...rules.map((rule) => `    ${rule}`),
    '  }',
    '};',
  ].join('\n');
  const factory = new Function(...HELPER_NAMES, 'T', 'K', body) as (
    ...args: unknown[]
  ) => ReturnType<typeof generateScan<R>>;
  return factory(...HELPER_NAMES.map((name) => HELPERS[name]), tests, constants);
}
