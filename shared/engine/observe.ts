import {
  generateScan,
  MAX_SCAN_RULES,
  type Scan,
  type ScanMode,
  scanFields,
} from '../conditions/scan';
import type { RecordBatch } from '../records/batch';
import type { CompiledRule } from './aggregate';
import {
  type Collector,
  collector,
  type Observations,
  type ObservedRule,
  type Repeats,
} from './collectors';

/**
 * Every rule's observations of one poll, in one pass over the records (records outer, rules
 * inner): each record is loaded once for all the rules instead of once per rule, which on a
 * 100k-record answer is most of what evaluating the rules cost. The pass is generated code
 * (`generateScan`) where the runtime allows it, else the loop below over each rule's `where`.
 * Observations per rule, in the order given.
 */
export function observeAll(
  rules: readonly ObservedRule[],
  records: RecordBatch,
  nowMs: number,
  zone: string,
  options: { readonly generated?: boolean } = {},
): Observations[] {
  let repeats: { value: Repeats } | undefined;
  const repeated = () => {
    repeats ??= { value: records.keyIndex().repeats };
    return repeats.value;
  };
  const collectors = rules.map((rule) => collector(rule, records, nowMs, zone, repeated));
  const passes = options.generated === false ? undefined : generatedPasses(rules);
  if (passes) {
    passes.forEach((pass, chunk) => {
      const sinks = collectors.slice(chunk * SCAN_RULES, (chunk + 1) * SCAN_RULES);
      const rows = records.scanRows(pass.fields);
      pass.scan(rows.mode)(rows, nowMs, sinks, trackedRows(records, sinks));
    });
  } else {
    for (let start = 0; start < collectors.length; start += SCAN_RULES) {
      const sinks = collectors.slice(start, start + SCAN_RULES);
      interpretedScan(sinks, records, nowMs, trackedRows(records, sinks));
    }
  }
  return collectors.map((sink) => sink.observations());
}

/**
 * Rules per generated pass: past a few dozen rules one function grows too large for V8 to
 * optimise well (300 rules ran slower than the loop), so more rules take several passes. At
 * most `MAX_SCAN_RULES`, so a pass's tracked flags fit one small integer (`trackedRows`).
 */
const SCAN_RULES = MAX_SCAN_RULES;

/**
 * Generated passes by the compiled rules they were made for (keyed by the first, checked
 * whole): the rules of a deployed config are compiled once (`compileRule` memoises), so each
 * poll reuses passes V8 has already optimised instead of generating and warming new ones.
 */
const scanCache = new WeakMap<CompiledRule, { compiled: CompiledRule[]; passes: Pass[] }>();

/** One generated pass: the fields it reads, and its scan of raw rows or of records. */
interface Pass {
  readonly fields: readonly string[];
  scan(mode: ScanMode): Scan;
}

/** A pass over `chunk`, each mode's scan generated on first use. */
function pass(chunk: readonly CompiledRule[]): Pass {
  const plans = chunk.map((rule) => rule.plan);
  const source = chunk[0]?.rule.source ?? 'live_calls';
  const scans = new Map<ScanMode, Scan>();
  // Generated now, so a runtime that forbids code generation says so here.
  scans.set('raw', generateScan(plans, 'raw', source));
  return {
    fields: scanFields(plans),
    scan(mode) {
      let scan = scans.get(mode);
      if (scan === undefined) {
        scan = generateScan(plans, mode, source);
        scans.set(mode, scan);
      }
      return scan;
    },
  };
}

/**
 * Per row, a bit per rule of the pass that tracks the row's identity (bit `n` for the pass's
 * rule `n`); `undefined` when no rule tracks any. A steady state with 10,000 firing payments
 * builds this every poll: each tracked identity's rows are looked up (by binary search in a
 * batch whose identities are ordered, a log; else in the batch's `KeyIndex`), instead of a
 * hash lookup for each of 100,000 rows.
 */
function trackedRows(records: RecordBatch, collectors: readonly Collector[]) {
  let rows: Uint32Array | undefined;
  const ordered = records.keyOrder() !== 0;
  collectors.forEach((sink, rule) => {
    const bit = 1 << rule;
    for (const id of sink.tracked) {
      rows ??= new Uint32Array(records.length);
      if (ordered) {
        const index = records.indexOfKey(id);
        if (index !== -1) rows[index] = (rows[index] as number) | bit;
      } else {
        for (const row of records.keyIndex().rowsOf(id)) rows[row] = (rows[row] as number) | bit;
      }
    }
  });
  return rows;
}

function generatedPasses(rules: readonly ObservedRule[]): Pass[] | undefined {
  const compiled = rules.map((rule) => rule.compiled);
  const [first] = compiled;
  if (first === undefined) return [];
  const cached = scanCache.get(first);
  if (
    cached !== undefined &&
    cached.compiled.length === compiled.length &&
    cached.compiled.every((rule, index) => rule === compiled[index])
  ) {
    return cached.passes;
  }
  try {
    const passes: Pass[] = [];
    for (let start = 0; start < compiled.length; start += SCAN_RULES) {
      passes.push(pass(compiled.slice(start, start + SCAN_RULES)));
    }
    scanCache.set(first, { compiled, passes });
    return passes;
  } catch (error) {
    // Node started with --disallow-code-generation-from-strings: the loop answers the same.
    if (error instanceof EvalError) return undefined;
    throw error;
  }
}

/**
 * Every rule's `where` over every record, where code generation is disallowed; `tracked` as
 * `trackedRows` makes it for these rules.
 */
function interpretedScan(
  collectors: readonly Collector[],
  records: RecordBatch,
  nowMs: number,
  tracked: Uint32Array | undefined,
): void {
  const count = collectors.length;
  for (let index = 0; index < records.length; index += 1) {
    const record = records.record(index);
    const wanted = tracked === undefined ? 0 : (tracked[index] as number);
    for (let rule = 0; rule < count; rule += 1) {
      const sink = collectors[rule] as Collector;
      const matches = sink.where(record, nowMs);
      if (matches || (wanted & (1 << rule)) !== 0) sink.add(index, matches);
    }
  }
}
