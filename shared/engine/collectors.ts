import { fieldKind, type RecordPredicate } from '../conditions/compile';
import { NO_RAW_VALUE, type RecordBatch } from '../records/batch';
import { boundedText } from '../records/bounded';
import { IDENTITY_FIELD } from '../records/fields';
import { phoneListIdentity } from '../records/phone';
import {
  aggregateContext,
  type CompiledRule,
  MAX_LISTED_IDS,
  type Observation,
  RecordObservation,
} from './aggregate';
import { FirstKeys } from './first-keys';
import { alertKey } from './state';

/*
 * What each rule of a pass does with the rows handed to it (`observe.ts` hands them): a
 * per-record rule's instances, an aggregate's groups and distinct identities.
 */

/**
 * One rule's observations of a poll by key, and how many more holding observations under keys
 * the rule does not track were only counted (`ObservedRule.newAtMost`).
 */
export class Observations<T extends Observation = Observation> extends Map<string, T> {
  unlisted = 0;
}

/** What one rule does with each row of the pass, and what it saw at the end. */
export interface Collector {
  readonly where: RecordPredicate;
  /** Identities whose rows it also wants when they do not match (tracked instances). */
  readonly tracked: readonly string[];
  /** `index`: the row's position in the poll's batch; a row that matches or is tracked. */
  add(index: number, matches: boolean): void;
  observations(): Observations;
}

/** Per row, 1 when its identity repeats in the poll (`KeyIndex.repeats`). */
export type Repeats = Uint8Array | undefined;

/** How one rule of the pass is observed. */
export interface ObservedRule {
  readonly compiled: CompiledRule;
  /**
   * Records outside it, by `createdAtMs` and identity, are ignored (payments older than the
   * lookback, but for a firing alert held past it: `held.ts`).
   */
  readonly keep?: (createdAtMs: number | undefined, id: string) => boolean;
  /** Per-record rules: the rule's existing instances, by identity. */
  readonly tracked?: Iterable<{
    readonly key: string;
    readonly labels: Readonly<Record<string, string>>;
  }>;
  /** Per-record rules: instances store no context (payments, a log). */
  readonly compactContext?: boolean;
  /** Aggregate rules: the records are already one per identity (payments). */
  readonly distinct?: boolean;
  /**
   * Per-record rules over rows that are one per identity (payments): of the holding
   * observations under keys `tracks` does not know, only the `count` first in key order are
   * kept (the instances the rule may still start, and the examples its `too_many_alerts`
   * lists: `settleRule`); the others are only counted (`Observations.unlisted`). A broad rule
   * over 150,000 payments then keeps a few thousand observations, not 150,000, in a 256 MB
   * function. The rows must be one per identity (`distinctPayments`): a key met twice, once
   * left out, would be counted twice.
   */
  readonly newAtMost?: { readonly count: number; readonly tracks: (key: string) => boolean };
}

/**
 * A per-record rule's observations: one per record identity present in the poll (live calls
 * by `call_id`, payments by `id`) that matches or that `tracked` holds; a record that neither
 * matches nor is tracked changes nothing, so it costs no observation (a 100k-payment answer is
 * mostly those). Several rows of one call (an inbound call ringing several agents) are one
 * instance, holding when any row matches, described by the first matching row. Records not
 * in `keep` are ignored.
 */
class PerRecordCollector implements Collector {
  readonly where: RecordPredicate;
  readonly tracked: readonly string[];
  readonly #identity: string;
  /** An instance's labels: one literal shape per identity field, not a computed key each. */
  readonly #labelsOf: (id: string) => Readonly<Record<string, string>>;
  readonly #prefix: string;
  readonly #keep: ((createdAtMs: number | undefined, id: string) => boolean) | undefined;
  readonly #records: RecordBatch;
  readonly #compactContext: boolean;
  readonly #nowMs: number;
  readonly #zone: string;
  readonly #observed = new Observations<RecordObservation>();
  /** `ObservedRule.newAtMost`: the keys of the new observations kept, and what is tracked. */
  readonly #new:
    | { readonly keys: FirstKeys; readonly tracks: (key: string) => boolean }
    | undefined;
  /**
   * A tracked instance's key by identity: a row of a tracked identity is observed under the
   * instance's own key string, whose hash the maps of the previous state already know, instead
   * of a key built (and hashed) afresh for each of 10,000 firing payments every poll.
   */
  readonly #keyOfTracked = new Map<string, string>();

  constructor(rule: ObservedRule, records: RecordBatch, nowMs: number, zone: string) {
    const { rule: config, where } = rule.compiled;
    this.#records = records;
    this.where = where;
    this.#identity = IDENTITY_FIELD[config.source] ?? 'id';
    const identity = this.#identity;
    this.#labelsOf =
      identity === 'call_id'
        ? (id) => ({ call_id: id })
        : identity === 'id'
          ? (id) => ({ id })
          : (id) => ({ [identity]: id });
    const tracked: string[] = [];
    // alertKey for one label, without building the labels object for every record.
    const prefix = `${config.name}{${this.#identity}=`;
    this.#prefix = prefix;
    for (const instance of rule.tracked ?? []) {
      const id = instance.labels[this.#identity];
      if (id === undefined) continue;
      tracked.push(id);
      // Only a key this collector would build itself (a state written by another version of
      // the rule, an aggregate renamed per-record, keeps its own keys out).
      const { key } = instance;
      if (
        key.length === prefix.length + id.length + 1 &&
        key.startsWith(prefix) &&
        key.startsWith(id, prefix.length) &&
        key.endsWith('}')
      ) {
        this.#keyOfTracked.set(id, key);
      }
    }
    this.tracked = tracked;
    this.#keep = rule.keep;
    this.#compactContext = rule.compactContext ?? false;
    this.#new = rule.newAtMost && {
      keys: new FirstKeys(rule.newAtMost.count),
      tracks: rule.newAtMost.tracks,
    };
    this.#nowMs = nowMs;
    this.#zone = zone;
  }

  add(index: number, matches: boolean): void {
    const records = this.#records;
    const id = records.key(index);
    const createdAtMs = records.createdAtMs(index);
    if (this.#keep !== undefined && !this.#keep(createdAtMs, id)) return;
    const key = this.#keyOfTracked.get(id) ?? `${this.#prefix}${id}}`;
    const earlier = this.#observed.get(key);
    if (earlier !== undefined) {
      // A matching row describes the instance over one that does not; rows alike in matching
      // are all candidates (`RecordObservation`), so the answer's order decides nothing.
      if (earlier.holds === matches) earlier.addRow(index, createdAtMs);
      if (earlier.holds || !matches) return;
    } else if (matches && this.#new !== undefined && !this.#new.tracks(key)) {
      const out = this.#new.keys.offer(key);
      if (out !== undefined) {
        this.#observed.unlisted += 1;
        if (out === key) return;
        this.#observed.delete(out);
      }
    }
    this.#observed.set(
      key,
      new RecordObservation(
        key,
        this.#labelsOf(id),
        matches,
        createdAtMs,
        records,
        index,
        this.#nowMs,
        this.#zone,
        this.#compactContext,
      ),
    );
  }

  observations(): Observations {
    return this.#observed;
  }
}

/** The length of an identity's whole part (before its first `.`, if any). */
function wholeLength(id: string): number {
  const dot = id.indexOf('.');
  return dot === -1 ? id.length : dot;
}

/**
 * Identities in the order a message lists them: by the length of their whole part, then by
 * code unit, so numeric ids (`9` before `10`) and call ids (`1763700259.433` before
 * `1763700444.28`) come in numeric order.
 */
function compareIds(a: string, b: string): number {
  const wholeA = wholeLength(a);
  const wholeB = wholeLength(b);
  if (wholeA !== wholeB) return wholeA - wholeB;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Keeps in `listed` the `MAX_LISTED_IDS` smallest identities offered (`compareIds`), so a message lists the same ids whatever the answer's order. An
 * API lists a log in order, so most offers are one comparison with the last kept.
 */
function listId(listed: string[], key: string): void {
  const full = listed.length === MAX_LISTED_IDS;
  if (full && compareIds(key, listed[MAX_LISTED_IDS - 1] as string) >= 0) return;
  let position = full ? MAX_LISTED_IDS - 1 : listed.length;
  while (position > 0 && compareIds(key, listed[position - 1] as string) < 0) {
    listed[position] = listed[position - 1] as string;
    position -= 1;
  }
  listed[position] = key;
}

/**
 * The `MAX_LISTED_IDS` smallest identities offered (`listId`). Once it is full most offers
 * come after its last id, which `#after` tells from that id's whole length, measured once:
 * `compareIds` measured both ids for each of the 30,000 matching calls of a 20k-call poll, or
 * the 100,000 payments a count of every payment lists (about 2 ms of the 20k calls' evaluation).
 */
class SmallestIds {
  readonly first: string[] = [];
  #last: string | undefined;
  #lastWhole = 0;

  offer(key: string): void {
    if (this.#after(key)) return;
    listId(this.first, key);
    const last = this.first[MAX_LISTED_IDS - 1];
    if (last !== undefined && last !== this.#last) {
      this.#last = last;
      this.#lastWhole = wholeLength(last);
    }
  }

  /** Whether `key` comes after the last of a full list (`compareIds` above 0). */
  #after(key: string): boolean {
    const last = this.#last;
    if (last === undefined) return false;
    const whole = wholeLength(key);
    return whole > this.#lastWhole || (whole === this.#lastWhole && key > last);
  }
}

/** The distinct identities of a group's matching records: how many, and the smallest few. */
class Identities {
  size = 0;
  readonly smallest = new SmallestIds();
  /** Only identities that repeat in the poll: the rest are counted once by construction. */
  readonly #repeated = new Set<string>();

  add(key: string, repeats: boolean): void {
    if (repeats) {
      if (this.#repeated.has(key)) return;
      this.#repeated.add(key);
    }
    this.size += 1;
    this.smallest.offer(key);
  }
}

interface Group {
  readonly canonical: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly ids: Identities;
}

/**
 * A group label value of row `index`: one text for one value however the API writes it, so a
 * group keeps its key from poll to poll. Field values come normalised by kind (phones
 * canonical, money, numbers and times as their canonical text); a list of phones is sorted and
 * de-duplicated (`phoneListIdentity`); the identity field is the row's identity
 * (`1763700259.430` and the JSON number `1763700259.43` are one call). Text is folded to lower
 * case by the caller (`groupOf`).
 */
function labelOf(records: RecordBatch, index: number, field: string, identity: string): string {
  if (field === identity) return records.key(index);
  const value = records.value(index, field);
  if (value === undefined) return '';
  return Array.isArray(value) ? phoneListIdentity(value) : String(value);
}

/** What a label groups by: text case-insensitively, anything else as displayed. */
function groupOf(compiled: CompiledRule, field: string, label: string): string {
  return fieldKind(compiled.rule.source, field) === 'text' ? label.toLowerCase() : label;
}

/**
 * An aggregate rule's observations. Records are counted once per identity (DISTINCT
 * `call_id`: one inbound call ringing several agents is one call). Without `groupBy` there is
 * exactly one instance with empty labels, observed even when nothing matches, so
 * `count: "< 1"` works; with `groupBy`, one instance per group present among the matching
 * records, labels in `groupBy` order (a group absent from the poll counts 0 and no longer holds).
 */
class GroupCollector implements Collector {
  readonly where: RecordPredicate;
  readonly tracked: readonly string[] = [];
  readonly #compiled: CompiledRule;
  readonly #groups = new Map<string, Group>();
  /** Without `groupBy`: the one group, counted into directly. */
  readonly #single: Group | undefined;
  /** Per `groupBy` field, whether it groups case-insensitively (text). */
  readonly #folded: readonly boolean[];
  /**
   * Of a one-field `groupBy`, the group of each raw value met (a row's label is a function of
   * its raw value, `RecordBatch.rawValue`), and the group id of each label read otherwise: a
   * poll repeats a few values many times, so most rows cost one lookup.
   */
  readonly #groupOfRaw = new Map<unknown, Group>();
  /** Of a one-field `groupBy`, the field's raw value of a row (`RecordBatch.rawValues`). */
  readonly #rawOf: ((index: number) => unknown) | undefined;
  readonly #groupOfLabel = new Map<string, string>();
  readonly #repeats: Repeats;
  readonly #records: RecordBatch;
  /** The source's identity field: grouped by the row's identity, not its text. */
  readonly #identity: string;

  constructor(compiled: CompiledRule, records: RecordBatch, repeats: Repeats) {
    this.#compiled = compiled;
    this.#records = records;
    this.#identity = IDENTITY_FIELD[compiled.rule.source] ?? 'id';
    this.#repeats = repeats;
    this.where = compiled.where;
    this.#folded = compiled.rule.groupBy.map(
      (field) => fieldKind(compiled.rule.source, field) === 'text',
    );
    if (compiled.rule.groupBy.length === 0) {
      this.#single = { canonical: {}, labels: {}, ids: new Identities() };
      this.#groups.set('', this.#single);
    }
    const [only] = compiled.rule.groupBy;
    this.#rawOf =
      compiled.rule.groupBy.length === 1 && only !== undefined
        ? records.rawValues(only)
        : undefined;
  }

  add(index: number, matches: boolean): void {
    if (!matches) return;
    const repeats = this.#repeats !== undefined && this.#repeats[index] === 1;
    this.#groupOf(index).ids.add(this.#records.key(index), repeats);
  }

  /**
   * The group of matching row `index`. Labels are read once per distinct raw value of a
   * one-field groupBy: a poll has few groups and many rows, so most rows cost one lookup here.
   * (Kept apart from `#groupOfLabels`, whose callbacks made V8 allocate a context on every
   * call: about 3 MB of young-generation garbage over 20k live calls.)
   */
  #groupOf(index: number): Group {
    if (this.#single !== undefined) return this.#single;
    const raw = this.#rawOf === undefined ? NO_RAW_VALUE : this.#rawOf(index);
    const known = raw === NO_RAW_VALUE ? undefined : this.#groupOfRaw.get(raw);
    if (known !== undefined) return known;
    const group = this.#groupOfLabels(index);
    if (raw !== NO_RAW_VALUE) this.#groupOfRaw.set(raw, group);
    return group;
  }

  /**
   * The group of row `index` read from its labels, made on its first row. One field is its
   * own id; several are each length-prefixed, so no two groups share an id whatever their
   * text holds.
   */
  #groupOfLabels(index: number): Group {
    const records = this.#records;
    const { groupBy } = this.#compiled.rule;
    let id = '';
    let shown: string[];
    if (groupBy.length === 1) {
      const label = labelOf(records, index, groupBy[0] as string, this.#identity);
      shown = [label];
      let group = this.#groupOfLabel.get(label);
      if (group === undefined) {
        group = this.#folded[0] ? label.toLowerCase() : label;
        this.#groupOfLabel.set(label, group);
      }
      id = group;
    } else {
      shown = groupBy.map((field) => labelOf(records, index, field, this.#identity));
      shown.forEach((label, position) => {
        const group = this.#folded[position] ? label.toLowerCase() : label;
        id += `${group.length}:${group}`;
      });
    }
    let entry = this.#groups.get(id);
    if (entry === undefined) {
      const labels: Record<string, string> = {};
      const canonical: Record<string, string> = {};
      groupBy.forEach((field, position) => {
        // Bounded after folding, so a long label's digest is of the text it groups by.
        const label = shown[position] as string;
        labels[field] = boundedText(label);
        canonical[field] = boundedText(groupOf(this.#compiled, field, label));
      });
      entry = { canonical, labels, ids: new Identities() };
      this.#groups.set(id, entry);
    } else {
      // Text written in several letter cases is one group, shown as the writing that sorts
      // first: the same label whatever the answer's order.
      const { labels } = entry;
      groupBy.forEach((field, position) => {
        if (!this.#folded[position]) return;
        const label = boundedText(shown[position] as string);
        if (label < (labels[field] as string)) labels[field] = label;
      });
    }
    return entry;
  }

  observations(): Observations {
    const { rule, count } = this.#compiled;
    const observed = new Observations();
    for (const { canonical, labels, ids } of this.#groups.values()) {
      // The key comes from the canonical values, so a group whose text changes letter case
      // between polls (the API's drift) stays one alert; `step` keeps the first labels seen.
      const key = alertKey(rule.name, canonical);
      observed.set(key, {
        key,
        labels,
        holds: count ? count(ids.size) : false,
        value: ids.size,
        context: aggregateContext(rule, labels, ids.size, ids.smallest.first),
      });
    }
    return observed;
  }
}

/**
 * An ungrouped count over records already one per identity (payments): a count and the
 * smallest few ids, not a set of 90,000 ids hashed to learn its size.
 */
class TotalCollector implements Collector {
  readonly where: RecordPredicate;
  readonly tracked: readonly string[] = [];
  readonly #compiled: CompiledRule;
  #matching = 0;
  readonly #ids = new SmallestIds();
  readonly #records: RecordBatch;

  constructor(compiled: CompiledRule, records: RecordBatch) {
    this.#compiled = compiled;
    this.#records = records;
    this.where = compiled.where;
  }

  add(index: number, matches: boolean): void {
    if (!matches) return;
    this.#matching += 1;
    this.#ids.offer(this.#records.key(index));
  }

  observations(): Observations {
    const { rule, count } = this.#compiled;
    const key = alertKey(rule.name, {});
    const observation: Observation = {
      key,
      labels: {},
      holds: count ? count(this.#matching) : false,
      value: this.#matching,
      context: aggregateContext(rule, {}, this.#matching, this.#ids.first),
    };
    return new Observations([[key, observation]]);
  }
}

/** The collector of one rule of the pass. */
export function collector(
  rule: ObservedRule,
  records: RecordBatch,
  nowMs: number,
  zone: string,
  repeats: () => Repeats,
): Collector {
  const { compiled } = rule;
  if (compiled.rule.count === undefined) return new PerRecordCollector(rule, records, nowMs, zone);
  let counting: Collector;
  if (rule.distinct) {
    counting =
      compiled.rule.groupBy.length === 0
        ? new TotalCollector(compiled, records)
        : new GroupCollector(compiled, records, undefined);
  } else counting = new GroupCollector(compiled, records, repeats());
  return rule.keep === undefined ? counting : keeping(counting, records, rule.keep);
}

/** An aggregate's collector counting only the matching rows `keep` keeps. */
function keeping(
  inner: Collector,
  records: RecordBatch,
  keep: (createdAtMs: number | undefined, id: string) => boolean,
): Collector {
  return {
    where: inner.where,
    tracked: inner.tracked,
    add(index, matches) {
      // An aggregate's `keep` reads the date only.
      if (matches && !keep(records.createdAtMs(index), '')) return;
      inner.add(index, matches);
    },
    observations: () => inner.observations(),
  };
}
