import {
  type CountPredicate,
  compileCount,
  compileWhere,
  conditionText,
  fieldDisplay,
  planWhere,
  type RecordPredicate,
} from '../conditions/compile';
import type { PlannedCondition } from '../conditions/generate';
import { shownValue } from '../messages/display';
import { completeRecord } from '../records/record';
import type { ApiRecord } from '../records/types';
import type { RuleConfig } from '../types/config';

/** What one poll says about one alert instance of a rule. */
export interface Observation {
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly holds: boolean;
  /** The count, for aggregate rules. */
  readonly value?: number;
  /** Read only when the instance needs it: a record's context costs a display per field. */
  readonly context: Readonly<Record<string, string>>;
  readonly createdAtMs?: number;
  /**
   * The instance stores no context, only the notification carries it: true for payments, a
   * log whose stored context is never rendered (a notification always describes the payment
   * as seen in the poll that owes it; an absent payment is neither repeated nor resolved).
   * 10,000 stuck payments then carry no 10,000 contexts in memory and in the stored state.
   */
  readonly compactContext?: boolean;
}

/** Where an observation's record is read from (a poll's `RecordBatch`). */
export interface RecordSource {
  record(index: number): ApiRecord;
}

/**
 * A per-record observation whose record is read and context built on first read only: 10,000
 * stuck payments firing since an earlier run need neither while no notification goes out.
 * Several rows of one record alike in matching (a call ringing several agents) are all
 * candidates: the one whose context, as text, comes first describes it, so the answer's order
 * decides nothing; only such records pay for reading more than one row.
 */
export class RecordObservation implements Observation {
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly holds: boolean;
  readonly compactContext: boolean;
  readonly #records: RecordSource;
  /** The candidate rows; the first until `#choose` has run. */
  #row: number;
  #others: number[] | undefined;
  #createdAtMs: number | undefined;
  readonly #nowMs: number;
  readonly #zone: string;
  #context: Readonly<Record<string, string>> | undefined;

  constructor(
    key: string,
    labels: Readonly<Record<string, string>>,
    holds: boolean,
    createdAtMs: number | undefined,
    records: RecordSource,
    index: number,
    nowMs: number,
    zone: string,
    compactContext: boolean,
  ) {
    this.key = key;
    this.labels = labels;
    this.holds = holds;
    this.#createdAtMs = createdAtMs;
    this.compactContext = compactContext;
    this.#records = records;
    this.#row = index;
    this.#nowMs = nowMs;
    this.#zone = zone;
  }

  /** Another row of the same record, alike in matching. */
  addRow(index: number, createdAtMs: number | undefined): void {
    this.#others ??= [];
    this.#others.push(index);
    // The earliest creation time of the record's rows: one that does not depend on order.
    const earliest = this.#createdAtMs;
    if (createdAtMs !== undefined && (earliest === undefined || createdAtMs < earliest)) {
      this.#createdAtMs = createdAtMs;
    }
  }

  get createdAtMs(): number | undefined {
    return this.#createdAtMs;
  }

  get context(): Readonly<Record<string, string>> {
    this.#context ??= this.#choose();
    return this.#context;
  }

  #contextOf(row: number): Record<string, string> {
    return recordContext(this.#records.record(row), this.#nowMs, this.#zone);
  }

  #choose(): Record<string, string> {
    let context = this.#contextOf(this.#row);
    if (this.#others === undefined) return context;
    let text = contextText(context);
    for (const row of this.#others) {
      const candidate = this.#contextOf(row);
      const candidateText = contextText(candidate);
      if (candidateText < text) {
        context = candidate;
        text = candidateText;
        this.#row = row;
      }
    }
    this.#others = undefined;
    return context;
  }
}

/** A context as one text, names in order: equal for rows that tell the same. */
function contextText(context: Readonly<Record<string, string>>): string {
  return JSON.stringify(
    Object.keys(context)
      .sort()
      .map((name) => [name, context[name]]),
  );
}

/** A rule with its conditions compiled once per evaluation. */
export interface CompiledRule {
  readonly rule: RuleConfig;
  readonly where: RecordPredicate;
  /** The `where` planned (what a scan generates code from); `undefined`: it can never hold. */
  readonly plan: readonly PlannedCondition[] | undefined;
  readonly count?: CountPredicate;
}

/** Matching call ids / payment ids an aggregate message lists. */
export const MAX_LISTED_IDS = 5;

/** Compiled rules by rule: a deployed config's rules are compiled once, not every poll. */
const compiledRules = new WeakMap<RuleConfig, { zone: string; compiled: CompiledRule }>();

/**
 * Compiles a rule's `where` and `count` in the configured zone. Memoised per rule object and
 * zone (rules are immutable once validated), so generated code is made and optimised once.
 */
export function compileRule(rule: RuleConfig, zone: string): CompiledRule {
  const known = compiledRules.get(rule);
  if (known !== undefined && known.zone === zone) return known.compiled;
  const compiled = compileRuleAfresh(rule, zone);
  compiledRules.set(rule, { zone, compiled });
  return compiled;
}

function compileRuleAfresh(rule: RuleConfig, zone: string): CompiledRule {
  return {
    rule,
    where: compileWhere(rule.source, rule.where, zone),
    plan: planWhere(rule.source, rule.where, zone),
    ...(rule.count ? { count: compileCount(rule.count) } : {}),
  };
}

/** Every field the record carries (and `age`), as display text for messages. */
export function recordContext(
  partial: ApiRecord,
  nowMs: number,
  zone: string,
): Record<string, string> {
  // A message tells the whole record, also the fields no rule reads.
  const record = completeRecord(partial, zone);
  const fields = Object.keys(record.fields);
  if (record.createdAtMs !== undefined) fields.push('age');
  const context: Record<string, string> = {};
  for (const field of fields) {
    const text = fieldDisplay(record, field, nowMs, zone);
    if (text !== '') context[field] = shownValue(text);
  }
  return context;
}

/** What an aggregate message tells: the count, the threshold, a few ids, the group. */
export function aggregateContext(
  rule: RuleConfig,
  labels: Readonly<Record<string, string>>,
  count: number,
  ids: readonly string[],
): Record<string, string> {
  return {
    ...labels,
    count: String(count),
    ...(rule.count ? { threshold: conditionText(rule.count) } : {}),
    ...(ids.length === 0 ? {} : { ids: ids.slice(0, MAX_LISTED_IDS).join(', ') }),
  };
}
