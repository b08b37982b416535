import type { Condition, Operator, SourceName } from '../config/types';
import { FIELDS, type FieldKind } from '../records/fields';
import { INVALID } from '../records/normalise';
import { type RowField, rowField } from '../records/row-fields';
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
 * Source that runs `fail` unless the value in `v` passes condition `index`. `lowered`: text in
 * `v` is already lower-cased (and trimmed), so equality is `===`; `canonical`: phones in `v`
 * are canonical (read by the record's normaliser), so their equality is `===` too.
 */
function testSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail: string,
  lowered = false,
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
    return lowered ? `(typeof v === 'string' ? v === ${literal} : ${call})` : call;
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
type LoadSource = (field: string, fail: string) => string;

/** From a record `r` (its fields in `f`), as `generateWhere` reads. */
const recordLoad: LoadSource = (field, fail) =>
  field === 'age'
    ? `v = r.createdAtMs; if (v === undefined) ${fail} v = (nowMs - v) / 1000;`
    : `v = f[${JSON.stringify(field)}]; if (v === undefined || v === '') ${fail}`;

/** Source of one condition: load the field, absent never holds (`fail`), then test it. */
function conditionSource(
  condition: PlannedCondition,
  index: number,
  constants: unknown[],
  fail = 'return false;',
  load: LoadSource = recordLoad,
  lowered = false,
  canonical = false,
): string {
  const test = testSource(condition, index, constants, fail, lowered, canonical);
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

/** The kind of a field a rule names; a name the catalogue does not know is read as text. */
function fieldKind(source: SourceName, field: string): FieldKind {
  return FIELDS[source][field] ?? 'text';
}

/** Rules one `generateScan` pass takes: their tracked flags are the bits of one small integer. */
export const MAX_SCAN_RULES = 30;

/** What a scan hands each rule's rows to: the rule's collector. */
export interface ScanSink {
  /** `index`: the row's position in the batch. */
  add(index: number, matches: boolean): void;
}

/** A pass over raw API rows or over records: the scan generated for each reads differently. */
export type ScanMode = 'raw' | 'records';

/** The rows a scan walks (`RecordBatch.scanRows`); row `i` is the batch's row `i`. */
export type ScanInput =
  | {
      /** Raw rows: each field normalised in the pass; what that cannot read, the record says. */
      readonly mode: 'raw';
      readonly zone: string;
      readonly rows: readonly unknown[];
      /** The record's own value of `field` at row `index`. */
      value(index: number, field: string): unknown;
      /** The record's `createdAtMs` at row `index`. */
      createdAtMs(index: number): number | undefined;
    }
  | {
      readonly mode: 'records';
      readonly rows: readonly {
        readonly fields: Readonly<Record<string, unknown>>;
        readonly createdAtMs?: number;
      }[];
    };

/** A generated pass: every rule of a source over one batch of rows. */
export type Scan = (
  input: ScanInput,
  nowMs: number,
  sinks: readonly ScanSink[],
  tracked: ArrayLike<number> | undefined,
) => void;

/** Distinct texts a scan remembers folded, per field: a poll's states and gateways are few. */
const MAX_FOLDED = 256;

/** Not yet read in this row (a field slot's value before its first load). */
const UNREAD: unique symbol = Symbol('unread');

/** The fields a scan of `plans` reads (`age` among them when a rule asks it). */
export function scanFields(plans: readonly (readonly PlannedCondition[] | undefined)[]): string[] {
  return [...new Set(plans.flatMap((plan) => plan?.map((condition) => condition.field) ?? []))];
}

/**
 * One pass over the rows for every rule of `source`, generated as a single function: each
 * rule's conditions inline in the loop (a labelled block per rule, left at the first condition
 * that fails), so no call is made per row and rule. Each field is read at most once per row,
 * into a slot of its own, and only when a rule reaches a condition on it. In `raw` mode rows
 * are the API's own objects, each field normalised where it is read (`rowField`), so a row the
 * rules reject costs no record; a field that reading cannot answer (`INVALID`) is the record's
 * own value. A row goes to a rule's sink when it matches, or when `tracked` flags the row for
 * that rule (bit `n` for rule `n`, so at most `MAX_SCAN_RULES` rules a pass: the rule's
 * instances must see it either way). `undefined` in `plans`: a rule that can never match. Same
 * answers as the rules' `where` functions over the rows' records (property-tested).
 */
export function generateScan(
  plans: readonly (readonly PlannedCondition[] | undefined)[],
  mode: ScanMode,
  source: SourceName,
): Scan {
  if (plans.length > MAX_SCAN_RULES) {
    throw new RangeError(`a scan takes at most ${MAX_SCAN_RULES} rules, not ${plans.length}`);
  }
  const fields = scanFields(plans);
  // Slots of text read from raw rows, each with a cache of folded texts.
  const folded: number[] = [];
  const readers = fields.map((field) =>
    rowField(
      source,
      field === 'age' ? 'created_at' : field,
      fieldKind(source, field === 'age' ? 'created_at' : field),
    ),
  );
  const load: LoadSource = (field, fail) => {
    const index = fields.indexOf(field);
    const x = `x${index}`;
    const name = JSON.stringify(field);
    let read: string;
    if (mode === 'records') {
      read = `${x} = ${field === 'age' ? 'row.createdAtMs' : `row.fields[${name}]`};`;
    } else {
      const reader = readers[index] as RowField;
      const argument = reader.wholeRow ? 'row' : `row[${JSON.stringify(reader.name)}]`;
      const fallback = field === 'age' ? 'B.createdAtMs(i)' : `B.value(i, ${name})`;
      read = `${x} = N${index}(${argument}, Z); if (${x} === I) ${x} = ${fallback};`;
      if (fieldKind(source, field) === 'money' && !reader.wholeRow) {
        // `comparableMoney`'s first step, inline: a JSON number without an exponent as it is.
        read = `r = ${argument}; if (typeof r === 'number' && (r === 0 || (r > 0 ? r >= 1e-6 && r < 1e21 : r <= -1e-6 && r > -1e21))) ${x} = r; else { ${read} }`;
      }
    }
    if (field === 'age') {
      return `if (${x} === U) { ${read} } v = ${x}; if (v === undefined) ${fail} v = (nowMs - v) / 1000;`;
    }
    if (fieldKind(source, field) !== 'text') {
      return `if (${x} === U) { ${read} } v = ${x}; if (v === undefined || v === '') ${fail}`;
    }
    // Text compares trimmed and lower-cased (`compareText`): folded once a row, not once a rule,
    // and in raw rows once a scan for each text met (a poll repeats a few states many times).
    const fold = `if (typeof ${x} === 'string') ${x} = ${x}.trim().toLowerCase();`;
    const reader = readers[index] as RowField;
    if (mode === 'records' || reader.wholeRow) {
      return `if (${x} === U) { ${read} ${fold} } v = ${x}; if (v === undefined || v === '') ${fail}`;
    }
    if (!folded.includes(index)) folded.push(index);
    const cache = `C${index}`;
    const fresh = `${x} = r.trim().toLowerCase(); if (${cache}.size < ${MAX_FOLDED}) ${cache}.set(r, ${x});`;
    return [
      `if (${x} === U) {`,
      `r = row[${JSON.stringify(reader.name)}];`,
      `if (typeof r === 'string') { ${x} = ${cache}.get(r); if (${x} === undefined) { ${fresh} } }`,
      `else { ${read} ${fold} }`,
      `} v = ${x}; if (v === undefined || v === '') ${fail}`,
    ].join(' ');
  };
  const constants: unknown[] = [];
  const tests: ValueTest[] = [];
  const rules = plans.map((plan, rule) => {
    const wanted = `(w & ${1 << rule}) !== 0`;
    const deliver = `if (m || (${wanted})) s${rule}.add(i, m);`;
    if (plan === undefined) return `if (${wanted}) s${rule}.add(i, false);`;
    const label = `rule${rule}`;
    const conditions = plan.map((condition) => {
      tests.push(compileValueTest(condition.kind, condition.op, condition.values));
      const lowered = condition.field !== 'age' && fieldKind(source, condition.field) === 'text';
      return conditionSource(
        condition,
        tests.length - 1,
        constants,
        `break ${label};`,
        load,
        lowered,
        // Raw rows' phones are read by the record's normaliser: canonical.
        mode === 'raw',
      );
    });
    return `m = false;\n    ${label}: {\n      ${conditions.join('\n      ')}\n      m = true;\n    }\n    ${deliver}`;
  });
  const slots = fields.map((_, index) => index);
  const body = [
    "'use strict';",
    'return function scan(rows, B, Z, nowMs, S, tracked) {',
    ...plans.map((_, rule) => `  const s${rule} = S[${rule}];`),
    '  let v;',
    '  let c;',
    '  let m;',
    '  let r;',
    ...folded.map((index) => `  const C${index} = new Map();`),
    '  for (let i = 0; i < rows.length; i += 1) {',
    '    const row = rows[i];',
    ...slots.map((index) => `    let x${index} = U;`),
    '    const w = tracked === undefined ? 0 : tracked[i];',
    ...rules.map((rule) => `    ${rule}`),
    '  }',
    '};',
  ].join('\n');
  const normaliserNames = slots.map((index) => `N${index}`);
  const factory = new Function(...HELPER_NAMES, 'T', 'K', 'U', 'I', ...normaliserNames, body) as (
    ...args: unknown[]
  ) => (
    rows: ScanInput['rows'],
    input: ScanInput,
    zone: string | undefined,
    nowMs: number,
    sinks: readonly ScanSink[],
    tracked: ArrayLike<number> | undefined,
  ) => void;
  const scan = factory(
    ...HELPER_NAMES.map((name) => HELPERS[name]),
    tests,
    constants,
    UNREAD,
    INVALID,
    ...readers.map((reader) => reader.read),
  );
  return (input, nowMs, sinks, tracked) => {
    if (input.mode !== mode) throw new TypeError(`a ${mode} scan cannot read ${input.mode} rows`);
    const zone = input.mode === 'raw' ? input.zone : undefined;
    scan(input.rows, input, zone, nowMs, sinks, tracked);
  };
}
