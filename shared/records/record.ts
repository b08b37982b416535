import type { SourceName } from '../types/config';
import { MAX_KEPT_LENGTH } from './bounded';
import { fastPayment } from './fast-payment';
import { FIELDS, type FieldKind, IDENTITY_FIELD } from './fields';
import { INVALID, normaliseText, readIdentity } from './normalise';
import { type FieldReader, fieldReader } from './reader';
import { applyAliases, RECORD_FIELDS, readLenient, recordKey } from './schema';
import type { ApiRecord, FieldValue } from './types';

export type RawRecord = Readonly<Record<string, unknown>>;

/** How the rows of one answer are read into records: which fields, in which zone. */
export interface RecordPlan {
  readonly source: SourceName;
  readonly zone: string;
  /** The fields read into `fields`; `RECORD_FIELDS[source]` itself when every one is. */
  readonly read: ReadonlyArray<readonly [string, FieldKind]>;
  readonly reader: FieldReader;
  /** Records keep `raw` (a caller that named no fields gets every record whole with `raw`). */
  readonly keepRaw: boolean;
  /** Fields no document names, read as text (also in `read`): `ParseOptions.undocumented`. */
  readonly undocumented: readonly string[];
}

/** Always read: the identity (and its fallback) and `created_at` (`age`, the lookback). */
const ALWAYS_READ: ReadonlySet<string> = new Set(['id', 'call_id', 'created_at']);

/**
 * The plan for `fields` (absent: every field, and `raw` on every record). A live call's other
 * fields are left in `raw` (the record is `partial`), read by `completeRecord` only when a
 * message needs the whole record. Payments, of a fixed shape and few fields, are always read
 * whole, and a record read whole for a caller that named its fields carries no `raw`: nothing
 * would read it, and keeping it would keep the whole parsed body alive beside the records.
 */
export function recordPlan(
  source: SourceName,
  zone: string,
  fields: ReadonlySet<string> | undefined,
  undocumented: readonly string[] = undocumentedIn(source, fields),
): RecordPlan {
  const all = RECORD_FIELDS[source];
  let read = all;
  if (fields !== undefined && source !== 'payments') {
    const some = all.filter(([name]) => fields.has(name) || ALWAYS_READ.has(name));
    if (some.length < all.length) read = some;
  }
  const extras = [...new Set(undocumented)].filter((name) => FIELDS[source][name] === undefined);
  if (extras.length > 0) read = [...read, ...extras.map((name) => [name, 'text'] as const)];
  return {
    source,
    zone,
    read,
    reader: fieldReader(read),
    keepRaw: fields === undefined,
    undocumented: extras,
  };
}

/** The names of `fields` no document gives `source`'s records. */
function undocumentedIn(source: SourceName, fields: ReadonlySet<string> | undefined): string[] {
  return fields === undefined
    ? []
    : [...fields].filter((name) => FIELDS[source][name] === undefined);
}

/**
 * `record` with the plan's undocumented fields read from `raw` as text, for the paths that read
 * only documented ones (the payments fast path, the lenient reading); the same values the plan's reader
 * gives. A value that is no text (an object) is left out, as an unreadable field is.
 */
function withUndocumented(plan: RecordPlan, record: ApiRecord, raw: RawRecord): ApiRecord {
  if (plan.undocumented.length === 0) return record;
  const fields = { ...record.fields };
  for (const name of plan.undocumented) {
    const value = normaliseText(raw[name]);
    if (value !== undefined && value !== INVALID) fields[name] = value;
  }
  return { ...record, fields };
}

/** Whether two plans read rows alike (`readBatch` makes a plan per answer). */
export function samePlan(a: RecordPlan, b: RecordPlan): boolean {
  return (
    a === b ||
    (a.source === b.source &&
      a.zone === b.zone &&
      a.keepRaw === b.keepRaw &&
      a.undocumented.length === b.undocumented.length &&
      a.read.length === b.read.length &&
      a.read.every(([name, kind], index) => {
        const other = b.read[index];
        return other !== undefined && other[0] === name && other[1] === kind;
      }))
  );
}

export function isPlainObject(value: unknown): value is RawRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A printable ASCII character other than `0`: neither trimmed nor dropped from an id's end. */
function isPlainEnd(code: number): boolean {
  return code > 0x20 && code < 0x7f && code !== 0x30;
}

/** An identity field as the record reads it: unreadable is absent (the lenient reading drops it). */
function identityText(value: unknown): string | undefined {
  // The usual id (a UUID): nothing to trim at either end, no trailing zero to drop, not too
  // long, so it is its own identity without the general path's two trims.
  if (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_KEPT_LENGTH &&
    isPlainEnd(value.charCodeAt(0)) &&
    isPlainEnd(value.charCodeAt(value.length - 1))
  ) {
    return value;
  }
  const text = normaliseText(value);
  return text === INVALID ? undefined : readIdentity(text);
}

/**
 * The identity `readRow` gives the row's record, without reading the record: `undefined` when
 * the row would be skipped (no readable identity). Same rule as `recordKey`.
 */
export function rowKey(source: SourceName, raw: RawRecord): string | undefined {
  const key = identityText(raw[IDENTITY_FIELD[source]]);
  if (key !== undefined || source !== 'live_calls') return key;
  const id = identityText(raw.id);
  return id === undefined ? undefined : `id:${id}`;
}

/**
 * The common shape: every field of the plan readable as its kind. `undefined` sends the record
 * to the lenient reading, which keeps what it can. Same normalisers as that reading, so both
 * paths agree (a property test holds them to it and to the zod schema they replaced).
 */
function fastRecord(plan: RecordPlan, raw: RawRecord): ApiRecord | undefined {
  const { source } = plan;
  const fields = plan.reader(raw, plan.zone);
  if (fields === undefined) return undefined;
  const key = recordKey(source, fields);
  if (key === undefined) return undefined;
  applyAliases(source, fields, raw, plan.zone);
  const createdAt = fields.created_at;
  if (plan.read !== RECORD_FIELDS[source]) {
    return typeof createdAt === 'number'
      ? { source, key, createdAtMs: createdAt, fields, raw, partial: true }
      : { source, key, fields, raw, partial: true };
  }
  if (!plan.keepRaw) {
    return typeof createdAt === 'number'
      ? { source, key, createdAtMs: createdAt, fields }
      : { source, key, fields };
  }
  return typeof createdAt === 'number'
    ? { source, key, createdAtMs: createdAt, fields, raw }
    : { source, key, fields, raw };
}

type Outcome = { readonly record: ApiRecord } | { readonly reason: string };

/**
 * The odd record, read field by field (`readLenient`). A field it cannot read is left out of
 * `fields` (it stays in `raw`) and the record kept: one bad column must not hide a ringing
 * call. Only a record that is not an object or has no identity is skipped.
 */
function lenientRecord(source: SourceName, raw: unknown, zone: string, keepRaw = true): Outcome {
  if (!isPlainObject(raw)) {
    return {
      reason: `not an object (${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw})`,
    };
  }
  const outcome = readLenient(source, raw, zone);
  if (!('record' in outcome)) return outcome;
  const { key, createdAtMs, fields } = outcome.record;
  const record: ApiRecord =
    createdAtMs === undefined ? { source, key, fields } : { source, key, createdAtMs, fields };
  return { record: keepRaw ? { ...record, raw } : record };
}

/** One row read into its record by `plan`, or why it cannot be (and is skipped). */
export function readRow(plan: RecordPlan, raw: unknown): Outcome {
  if (isPlainObject(raw)) {
    if (plan.source !== 'payments') {
      const fast = fastRecord(plan, raw);
      if (fast) return { record: fast };
    } else {
      const fast = fastPayment(raw, plan.zone, plan.keepRaw);
      if (fast) return { record: withUndocumented(plan, fast, raw) };
    }
  }
  // The lenient reading reads every documented field: the record is whole.
  const outcome = lenientRecord(plan.source, raw, plan.zone, plan.keepRaw);
  return 'record' in outcome && isPlainObject(raw)
    ? { record: withUndocumented(plan, outcome.record, raw) }
    : outcome;
}

/** Plans that read every field, by source and zone: a message's context reads one a record. */
const wholePlans = new Map<string, RecordPlan>();

function wholePlan(source: SourceName, zone: string): RecordPlan {
  const id = `${source} ${zone}`;
  let plan = wholePlans.get(id);
  if (plan === undefined) {
    plan = recordPlan(source, zone, undefined);
    // A process meets one zone or a few (the rules file's); a bound all the same.
    if (wholePlans.size >= 16) wholePlans.clear();
    wholePlans.set(id, plan);
  }
  return plan;
}

/**
 * The record with every field read, as a plan without `fields` makes it: the same record when
 * it is not `partial`.
 */
export function completeRecord(record: ApiRecord, zone: string): ApiRecord {
  if (record.partial !== true || record.raw === undefined) return record;
  const outcome = readRow(wholePlan(record.source, zone), record.raw);
  // A partial record had an identity, so the whole read keeps it too.
  if (!('record' in outcome)) return record;
  // The whole plan reads documented fields only: the undocumented ones a rule asked for are
  // the partial record's.
  const whole = outcome.record;
  const extra = Object.keys(record.fields).filter((name) => !Object.hasOwn(whole.fields, name));
  if (extra.length === 0) return whole;
  const fields = { ...whole.fields };
  for (const name of extra) fields[name] = record.fields[name] as FieldValue;
  return { ...whole, fields };
}
