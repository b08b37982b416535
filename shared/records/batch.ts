import { KeyIndex } from './key-index';
import { INVALID, type Normalised } from './normalise';
import { type RawRecord, type RecordPlan, readRow, samePlan } from './record';
import { readsAlias, valueReader } from './row-fields';
import type { ApiRecord, FieldValue } from './types';

/** Identities in order: shorter first, then by code unit, so numeric ids in numeric order. */
function compareKeys(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

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

/** Of rows `a` and `b` of one identity in `batch`, the one that counts (`RecordBatch.merge`). */
export type PreferRow = (batch: RecordBatch, a: number, b: number) => number;

/**
 * For each identity that rows of more than one answer have (`answers[i]`: row `i`'s answer),
 * the row `prefer` picks of all its rows; identities one answer alone has are left out.
 */
function preferredAcrossAnswers(
  batch: RecordBatch,
  answers: Uint32Array,
  prefer: PreferRow,
): Map<string, number> {
  const answerOf = new Map<string, number>();
  const several = new Set<string>();
  for (let index = 0; index < batch.length; index += 1) {
    const key = batch.key(index);
    const answer = answerOf.get(key);
    if (answer === undefined) answerOf.set(key, answers[index] as number);
    else if (answer !== answers[index]) several.add(key);
  }
  const preferred = new Map<string, number>();
  if (several.size === 0) return preferred;
  for (let index = 0; index < batch.length; index += 1) {
    const key = batch.key(index);
    if (!several.has(key)) continue;
    const best = preferred.get(key);
    preferred.set(key, best === undefined ? index : prefer(batch, best, index));
  }
  return preferred;
}

/** `RecordBatch.rawValue` of a row that cannot tell its value from a raw value alone. */
export const NO_RAW_VALUE: unique symbol = Symbol('no raw value');

/**
 * The records of one poll, read lazily: a row's identity is read up front (the engine counts,
 * tracks and de-duplicates by it), any other field only when a rule, a metric or a message
 * reads it, and the whole record only for a row something keeps (an alert's instance, a
 * notification). A 100k-payment answer of which a few hundred rows match costs a few hundred
 * records, not 100k. `value(i, f)` is always what `record(i).fields[f]` holds.
 *
 * A batch either reads raw API rows (`readBatch`) or wraps records already read (`of`).
 */
export class RecordBatch {
  readonly length: number;
  /** Raw rows (with `#plan`) or records. */
  readonly #rows: readonly unknown[];
  readonly #keys: readonly string[];
  readonly #plan: RecordPlan | undefined;
  #records: (ApiRecord | undefined)[] | undefined;
  /** Whether identities strictly ascend (1) or descend (-1), or neither (0); unknown yet. */
  #order: -1 | 0 | 1 | undefined;
  #index: KeyIndex | undefined;
  /** The keys' `sampledHash`es when the reader took them (`ofRows`). */
  readonly #hashes: Uint32Array | undefined;
  #exact: Map<string, ((raw: RawRecord) => Normalised) | null> | undefined;

  private constructor(
    rows: readonly unknown[],
    keys: readonly string[],
    plan?: RecordPlan,
    hashes?: Uint32Array,
  ) {
    this.#rows = rows;
    this.#keys = keys;
    this.#plan = plan;
    this.#hashes = hashes;
    this.length = rows.length;
  }

  /** No rows. */
  static readonly EMPTY: RecordBatch = new RecordBatch([], []);

  /** A batch of records already read (tests; a merge of batches read by different plans). */
  static of(records: readonly ApiRecord[]): RecordBatch {
    return new RecordBatch(
      records,
      records.map((record) => record.key),
    );
  }

  /**
   * Raw rows read by `plan`, with their identities (`rowKey`): every row must be a plain
   * object with an identity (the parser skips the others). `hashes`: the identities'
   * `sampledHash`es (`KeyIndex.of`), when the reader took them.
   */
  static ofRows(
    plan: RecordPlan,
    rows: readonly RawRecord[],
    keys: readonly string[],
    hashes?: Uint32Array,
  ) {
    return new RecordBatch(rows, keys, plan, hashes);
  }

  /**
   * The rows of several answers to one poll (the planner may ask several windows or amounts).
   * An identity one answer lists keeps every row it has there (a call ringing several agents:
   * conditions on the agent see every row). An identity several answers list keeps the one row
   * `prefer` picks of all its rows in all of them, so which answer came first decides nothing;
   * without `prefer`, every row of every answer is kept. `prefer(batch, a, b)` returns `a` or
   * `b`, rows of `batch`, and must pick by content alone (the same of two rows in any order).
   */
  static merge(batches: readonly RecordBatch[], prefer?: PreferRow): RecordBatch {
    if (batches.length === 1) return batches[0] as RecordBatch;
    const first = batches[0];
    const plan = first === undefined ? undefined : first.#plan;
    const raw =
      plan !== undefined &&
      batches.every((batch) => batch.#plan !== undefined && samePlan(batch.#plan, plan));
    const rows: unknown[] = [];
    const keys: string[] = [];
    // The answer each row came from, to tell repeats inside one answer from repeats across.
    const answers = new Uint32Array(batches.reduce((total, batch) => total + batch.length, 0));
    batches.forEach((batch, answer) => {
      for (let index = 0; index < batch.length; index += 1) {
        answers[rows.length] = answer;
        rows.push(raw ? batch.#rows[index] : batch.record(index));
        keys.push(batch.#keys[index] as string);
      }
    });
    const all = new RecordBatch(rows, keys, raw ? plan : undefined);
    if (prefer === undefined) return all;
    const preferred = preferredAcrossAnswers(all, answers, prefer);
    if (preferred.size === 0) return all;
    const kept: number[] = [];
    for (let index = 0; index < keys.length; index += 1) {
      const chosen = preferred.get(keys[index] as string);
      if (chosen === undefined || chosen === index) kept.push(index);
    }
    return all.select(kept);
  }

  /** The identity of row `index` (`ApiRecord.key`). */
  key(index: number): string {
    return this.#keys[index] as string;
  }

  /**
   * 1 when identities strictly ascend (the order an API lists a log in), -1 when they strictly
   * descend, 0 otherwise; ordered identities never repeat.
   */
  keyOrder(): -1 | 0 | 1 {
    if (this.#order === undefined) {
      const keys = this.#keys;
      let ascending = true;
      let descending = true;
      for (let index = 1; index < keys.length && (ascending || descending); index += 1) {
        const order = compareKeys(keys[index - 1] as string, keys[index] as string);
        ascending &&= order < 0;
        descending &&= order > 0;
      }
      this.#order = ascending ? 1 : descending ? -1 : 0;
    }
    return this.#order;
  }

  /** The rows by identity, built on first use. */
  keyIndex(): KeyIndex {
    this.#index ??= KeyIndex.of(this.#keys, this.#hashes);
    return this.#index;
  }

  /**
   * The first row of identity `key`, or -1: a binary search in a batch whose identities are
   * ordered (`keyOrder`), else through `keyIndex`.
   */
  indexOfKey(key: string): number {
    const order = this.keyOrder();
    const keys = this.#keys;
    if (order === 0) return this.keyIndex().rowsOf(key)[0] ?? -1;
    let low = 0;
    let high = keys.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const compared = compareKeys(keys[middle] as string, key) * order;
      if (compared === 0) return middle;
      if (compared < 0) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The record of row `index`, read once. */
  record(index: number): ApiRecord {
    const plan = this.#plan;
    if (plan === undefined) return this.#rows[index] as ApiRecord;
    this.#records ??= new Array(this.length);
    let record = this.#records[index];
    if (record === undefined) {
      const outcome = readRow(plan, this.#rows[index]);
      // The parser keeps only rows with an identity, which every reading keeps.
      if (!('record' in outcome)) throw new Error(`row ${index} lost its identity`);
      record = outcome.record;
      this.#records[index] = record;
    }
    return record;
  }

  /** `record(index).fields[field]`, without reading the rest of the record when it can. */
  value(index: number, field: string): FieldValue | undefined {
    const plan = this.#plan;
    if (plan === undefined) return (this.#rows[index] as ApiRecord).fields[field];
    const known = this.#records?.[index];
    if (known !== undefined) return known.fields[field];
    const reader = this.#exactReader(plan, field);
    if (reader === null) return this.record(index).fields[field];
    const value = reader(this.#rows[index] as RawRecord);
    return value === INVALID ? this.record(index).fields[field] : value;
  }

  /**
   * The raw primitive (string, number, boolean or null) `value(index, field)` is read from:
   * rows with the same raw value have the same value, so a caller may remember what it made of
   * one. `NO_RAW_VALUE` when the value is not a function of one raw primitive (a record batch,
   * a field read from two, a field the plan does not read, an object).
   */
  rawValue(index: number, field: string): unknown {
    const read = this.rawValues(field);
    return read === undefined ? NO_RAW_VALUE : read(index);
  }

  /**
   * `rawValue` of `field` as a function of the row, decided once for a caller that reads
   * many rows; `undefined` when no row's value is a function of its raw value.
   */
  rawValues(field: string): ((index: number) => unknown) | undefined {
    const plan = this.#plan;
    if (plan === undefined || readsAlias(plan.source, field)) return undefined;
    if (this.#exactReader(plan, field) === null) return undefined;
    const rows = this.#rows as readonly RawRecord[];
    return (index) => {
      const raw = (rows[index] as RawRecord)[field];
      return typeof raw === 'object' && raw !== null ? NO_RAW_VALUE : raw;
    };
  }

  /** `record(index).createdAtMs`. */
  createdAtMs(index: number): number | undefined {
    if (this.#plan === undefined) return (this.#rows[index] as ApiRecord).createdAtMs;
    const value = this.value(index, 'created_at');
    return typeof value === 'number' ? value : undefined;
  }

  /** Every record, in order (reads every row: for tests, timelines and small answers). */
  toArray(): ApiRecord[] {
    return Array.from({ length: this.length }, (_, index) => this.record(index));
  }

  /** The rows at `indexes`, in that order. */
  select(indexes: readonly number[]): RecordBatch {
    return new RecordBatch(
      indexes.map((index) => this.#rows[index]),
      indexes.map((index) => this.#keys[index] as string),
      this.#plan,
    );
  }

  /**
   * What a generated scan of `fields` (`age` among them) walks: the raw rows, or the records
   * when a field is one the plan leaves unread (then every record is read: the runner asks the
   * parser for every field a rule names, `usedFields`, so only other callers get there).
   */
  scanRows(fields: readonly string[]): ScanInput {
    const plan = this.#plan;
    if (plan === undefined) return { mode: 'records', rows: this.#rows as ApiRecord[] };
    const read = (field: string) => plan.read.some(([name]) => name === field);
    if (!fields.every((field) => read(field === 'age' ? 'created_at' : field))) {
      return { mode: 'records', rows: this.toArray() };
    }
    return {
      mode: 'raw',
      zone: plan.zone,
      rows: this.#rows,
      value: (index, field) => this.value(index, field),
      createdAtMs: (index) => this.createdAtMs(index),
    };
  }

  /** The reader of `field`'s exact value from a raw row; null when the plan does not read it. */
  #exactReader(plan: RecordPlan, field: string): ((raw: RawRecord) => Normalised) | null {
    this.#exact ??= new Map();
    let reader = this.#exact.get(field);
    if (reader === undefined) {
      const kind = plan.read.find(([name]) => name === field)?.[1];
      reader = kind === undefined ? null : valueReader(plan.source, field, kind, plan.zone);
      this.#exact.set(field, reader);
    }
    return reader;
  }
}
