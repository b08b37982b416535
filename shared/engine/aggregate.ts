import {
  type CountPredicate,
  compileCount,
  compileWhere,
  conditionText,
  fieldDisplay,
  fieldKind,
  type RecordPredicate,
} from '../conditions/compile';
import type { RuleConfig } from '../config/types';
import { IDENTITY_FIELD } from '../records/fields';
import type { ApiRecord } from '../records/types';
import { alertKey } from './state';

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
   * The previous instance's context may stand in for this one while nothing is sent: true for
   * payments, a log whose stored context is never rendered (a notification always describes
   * the payment as seen in the poll that owes it).
   */
  readonly keepContext?: boolean;
}

/**
 * A per-record observation whose context is built on first read only: 10,000 stuck payments
 * firing since an earlier run need none while no notification goes out.
 */
class RecordObservation implements Observation {
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly holds: boolean;
  readonly createdAtMs?: number;
  readonly keepContext: boolean;
  readonly #record: ApiRecord;
  readonly #nowMs: number;
  readonly #zone: string;
  #context: Readonly<Record<string, string>> | undefined;

  constructor(
    key: string,
    labels: Readonly<Record<string, string>>,
    holds: boolean,
    record: ApiRecord,
    nowMs: number,
    zone: string,
    keepContext: boolean,
  ) {
    this.key = key;
    this.labels = labels;
    this.holds = holds;
    if (record.createdAtMs !== undefined) this.createdAtMs = record.createdAtMs;
    this.keepContext = keepContext;
    this.#record = record;
    this.#nowMs = nowMs;
    this.#zone = zone;
  }

  get context(): Readonly<Record<string, string>> {
    this.#context ??= recordContext(this.#record, this.#nowMs, this.#zone);
    return this.#context;
  }
}

/** A rule with its conditions compiled once per evaluation. */
export interface CompiledRule {
  readonly rule: RuleConfig;
  readonly where: RecordPredicate;
  readonly count?: CountPredicate;
}

/** Matching call ids / payment ids an aggregate message lists. */
const MAX_LISTED_IDS = 5;

/** The first ids a message lists, without copying the whole set. */
function firstIds(ids: ReadonlySet<string>): string[] {
  const first: string[] = [];
  for (const id of ids) {
    if (first.length === MAX_LISTED_IDS) break;
    first.push(id);
  }
  return first;
}

/** Compiles a rule's `where` and `count` in the configured zone. */
export function compileRule(rule: RuleConfig, zone: string): CompiledRule {
  return {
    rule,
    where: compileWhere(rule.source, rule.where, zone),
    ...(rule.count ? { count: compileCount(rule.count) } : {}),
  };
}

/** Every field the record carries (and `age`), as display text for messages. */
export function recordContext(
  record: ApiRecord,
  nowMs: number,
  zone: string,
): Record<string, string> {
  const fields = Object.keys(record.fields);
  if (record.createdAtMs !== undefined) fields.push('age');
  const context: Record<string, string> = {};
  for (const field of fields) {
    const text = fieldDisplay(record, field, nowMs, zone);
    if (text !== '') context[field] = text;
  }
  return context;
}

/**
 * A per-record rule's observations: one per record identity present in the poll (live calls
 * by `call_id`, payments by `id`) that matches or that `tracked` (the rule's existing
 * instances, by identity) holds; a record that neither matches nor is tracked changes nothing, so it costs
 * no observation (a 100k-payment answer is mostly those). Several rows of one call (an inbound
 * call ringing several agents) are one instance, holding when any row matches, described by
 * the first matching row. Records not in `keep` (e.g. payments older than the lookback) are
 * ignored.
 */
export function observeRecords(
  compiled: CompiledRule,
  records: readonly ApiRecord[],
  nowMs: number,
  zone: string,
  keep: (record: ApiRecord) => boolean = () => true,
  tracked: Iterable<{ readonly labels: Readonly<Record<string, string>> }> = [],
  keepContext = false,
): Map<string, Observation> {
  const { rule, where } = compiled;
  const identity = IDENTITY_FIELD[rule.source] ?? 'id';
  const trackedIds = new Set<string>();
  for (const instance of tracked) {
    const id = instance.labels[identity];
    if (id !== undefined) trackedIds.add(id);
  }
  // alertKey for one label, without building the labels object for every record.
  const prefix = `${rule.name}{${identity}=`;
  const observed = new Map<string, Observation>();
  for (const record of records) {
    const matches = where(record, nowMs);
    if (!matches && (trackedIds.size === 0 || !trackedIds.has(record.key))) continue;
    if (!keep(record)) continue;
    const key = `${prefix}${record.key}}`;
    const earlier = observed.get(key);
    if (earlier && (earlier.holds || !matches)) continue;
    observed.set(
      key,
      new RecordObservation(
        key,
        { [identity]: record.key },
        matches,
        record,
        nowMs,
        zone,
        keepContext,
      ),
    );
  }
  return observed;
}

/** A group label value: canonical display text; text groups case-insensitively. */
function groupValue(
  compiled: CompiledRule,
  record: ApiRecord,
  field: string,
): { label: string; group: string } {
  const value = record.fields[field];
  if (value === undefined) return { label: '', group: '' };
  const label = Array.isArray(value) ? value.join(',') : String(value);
  const kind = fieldKind(compiled.rule.source, field);
  return { label, group: kind === 'text' ? label.toLowerCase() : label };
}

/**
 * An aggregate rule's observations. Records are counted once per identity (DISTINCT
 * `call_id`: one inbound call ringing several agents is one call). Without `groupBy` there is
 * exactly one instance with empty labels, observed even when nothing matches, so
 * `count: "< 1"` works; with `groupBy`, one instance per group present among the matching
 * records, labels in `groupBy` order (a group absent from the poll counts 0 and no longer holds).
 */
export function observeGroups(
  compiled: CompiledRule,
  records: readonly ApiRecord[],
  nowMs: number,
  distinct = false,
): Map<string, Observation> {
  const { rule, where, count } = compiled;
  if (distinct && rule.groupBy.length === 0) return observeTotal(compiled, records, nowMs);
  const groups = new Map<
    string,
    { canonical: Record<string, string>; labels: Record<string, string>; ids: Set<string> }
  >();
  if (rule.groupBy.length === 0) groups.set('', { canonical: {}, labels: {}, ids: new Set() });
  for (const record of records) {
    if (!where(record, nowMs)) continue;
    const labels: Record<string, string> = {};
    const canonical: Record<string, string> = {};
    for (const field of rule.groupBy) {
      const { label, group } = groupValue(compiled, record, field);
      labels[field] = label;
      canonical[field] = group;
    }
    const id = rule.groupBy.length ? JSON.stringify(canonical) : '';
    const entry = groups.get(id) ?? { canonical, labels, ids: new Set<string>() };
    entry.ids.add(record.key);
    groups.set(id, entry);
  }
  const observed = new Map<string, Observation>();
  for (const { canonical, labels, ids } of groups.values()) {
    // The key comes from the canonical values, so a group whose text changes letter case
    // between polls (the API's drift) stays one alert; `step` keeps the first labels seen.
    const key = alertKey(rule.name, canonical);
    observed.set(key, {
      key,
      labels,
      holds: count ? count(ids.size) : false,
      value: ids.size,
      context: aggregateContext(rule, labels, ids.size, firstIds(ids)),
    });
  }
  return observed;
}

/**
 * `observeGroups` without `groupBy` over records already one per identity (payments): a count
 * and the first few ids, not a set of 90,000 ids hashed to learn its size.
 */
function observeTotal(
  compiled: CompiledRule,
  records: readonly ApiRecord[],
  nowMs: number,
): Map<string, Observation> {
  const { rule, where, count } = compiled;
  let matching = 0;
  const ids: string[] = [];
  for (const record of records) {
    if (!where(record, nowMs)) continue;
    matching += 1;
    if (ids.length < MAX_LISTED_IDS) ids.push(record.key);
  }
  const key = alertKey(rule.name, {});
  const observation: Observation = {
    key,
    labels: {},
    holds: count ? count(matching) : false,
    value: matching,
    context: aggregateContext(rule, {}, matching, ids),
  };
  return new Map([[key, observation]]);
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
