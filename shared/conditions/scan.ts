import type { ScanInput } from '../records/batch';
import { INVALID } from '../records/normalise';
import { type RowField, rowField } from '../records/row-fields';
import type { SourceName } from '../types/config';
import { compileValueTest, type ValueTest } from './compare';
import { fieldKind } from './compile';
import {
  conditionSource,
  HELPER_NAMES,
  HELPERS,
  type LoadSource,
  type PlannedCondition,
} from './generate';

/*
 * The pass over a poll's rows for every rule of a source: generated code, built from the
 * condition sources of `generate.ts`, which `engine/observe.ts` runs.
 */

/** Rules one `generateScan` pass takes: their tracked flags are the bits of one small integer. */
export const MAX_SCAN_RULES = 30;

/** What a scan hands each rule's rows to: the rule's collector. */
export interface ScanSink {
  /** `index`: the row's position in the batch. */
  add(index: number, matches: boolean): void;
}

/** A pass over raw API rows or over records: the scan generated for each reads differently. */
export type ScanMode = 'raw' | 'records';

/** A generated pass: every rule of a source over one batch of rows. */
export type Scan = (
  input: ScanInput,
  nowMs: number,
  sinks: readonly ScanSink[],
  tracked: ArrayLike<number> | undefined,
) => void;

/**
 * Distinct texts a scan remembers folded, per field: a poll's states and gateways are few.
 * Past them a field's texts are mostly new (an id, a reference): each is trimmed, not folded,
 * and compared by `equalsText`, which lower-cases as it goes and stops at the first difference
 * (looking it up, folding a copy and hashing it cost several times that, for nothing).
 */
export const MAX_FOLDED = 256;

/**
 * Kinds whose raw value a scan remembers normalised, per field, like folded text: a poll's
 * DIDs and directions are few, and a phone list's canonical form costs a parse per row.
 */
const REMEMBERED_KINDS: ReadonlySet<string> = new Set(['phone', 'phones', 'direction']);

/** Not yet read in this row (a field slot's value before its first load). */
const UNREAD: unique symbol = Symbol('unread');

/** The variable telling whether a raw text slot holds its text folded (`MAX_FOLDED`). */
function foldedFlag(index: number): string {
  return `F${index}`;
}

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
  // Slots of phones and directions read from raw rows, each with a cache of normalised values.
  const remembered: number[] = [];
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
    const kind = fieldKind(source, field);
    if (mode === 'raw' && REMEMBERED_KINDS.has(kind) && !(readers[index] as RowField).wholeRow) {
      // What the normaliser makes of a text or number depends on it alone (and the zone);
      // only what it cannot read (`I`, answered by the row's record) is not remembered.
      if (!remembered.includes(index)) remembered.push(index);
      const cache = `P${index}`;
      const name = JSON.stringify((readers[index] as RowField).name);
      return [
        `if (${x} === U) {`,
        `r = row[${name}];`,
        `if (typeof r === 'string' || typeof r === 'number') { ${x} = ${cache}.get(r); if (${x} === undefined) { ${x} = N${index}(r, Z); if (${x} === I) ${x} = B.value(i, ${JSON.stringify(field)}); else if (${cache}.size < ${MAX_FOLDED}) ${cache}.set(r, ${x}); } }`,
        `else { ${read} }`,
        `} v = ${x}; if (v === undefined || v === '') ${fail}`,
      ].join(' ');
    }
    if (kind !== 'text') {
      return `if (${x} === U) { ${read} } v = ${x}; if (v === undefined || v === '') ${fail}`;
    }
    // Text compares trimmed and lower-cased (`compareText`): folded once a row, not once a rule,
    // and in raw rows once a scan for each text met (a poll repeats a few states many times).
    if (mode === 'records') {
      const fold = `if (typeof ${x} === 'string') ${x} = ${x}.trim().toLowerCase();`;
      return `if (${x} === U) { ${read} ${fold} } v = ${x}; if (v === undefined || v === '') ${fail}`;
    }
    if (!folded.includes(index)) folded.push(index);
    const cache = `C${index}`;
    const flag = foldedFlag(index);
    const reader = readers[index] as RowField;
    // `r`: the text to fold. A raw text needs no normaliser (what it makes of a text folds the
    // same); anything else, and a field read from several (the gateway), is read by it first.
    const text = reader.wholeRow
      ? `${read} r = ${x};`
      : `r = row[${JSON.stringify(reader.name)}]; if (typeof r !== 'string') { ${read} r = ${x}; }`;
    return [
      `if (${x} === U) {`,
      text,
      `if (typeof r !== 'string') ${flag} = false;`,
      `else if (${cache}.size < ${MAX_FOLDED}) { ${x} = ${cache}.get(r); if (${x} === undefined) { ${x} = r.trim().toLowerCase(); ${cache}.set(r, ${x}); } ${flag} = true; }`,
      `else { ${x} = r.trim(); ${flag} = false; }`,
      `} v = ${x}; if (v === undefined || v === '') ${fail}`,
    ].join(' ');
  };
  // In raw rows whether a text slot holds its text folded is the slot's flag; records' text is
  // folded as it is read.
  const foldedSource = (field: string) =>
    mode === 'raw' ? foldedFlag(fields.indexOf(field)) : "typeof v === 'string'";
  const constants: unknown[] = [];
  const tests: ValueTest[] = [];
  const rules = plans.map((plan, rule) => {
    const wanted = `(w & ${1 << rule}) !== 0`;
    const deliver = `if (m || (${wanted})) s${rule}.add(i, m);`;
    if (plan === undefined) return `if (${wanted}) s${rule}.add(i, false);`;
    const label = `rule${rule}`;
    const conditions = plan.map((condition) => {
      tests.push(compileValueTest(condition.kind, condition.op, condition.values));
      const text = condition.field !== 'age' && fieldKind(source, condition.field) === 'text';
      return conditionSource(
        condition,
        tests.length - 1,
        constants,
        `break ${label};`,
        load,
        text ? foldedSource(condition.field) : undefined,
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
    // Set wherever the slot is read, before anything reads it.
    ...folded.map((index) => `  let ${foldedFlag(index)} = false;`),
    ...remembered.map((index) => `  const P${index} = new Map();`),
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
