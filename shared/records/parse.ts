import type { SourceName } from '../config/types';
import { assertTimeZone } from '../time/zone';
import { NotAnArrayError } from './errors';
import { fastPayment } from './fast-payment';
import type { FieldKind } from './fields';
import { type FieldReader, fieldReader } from './reader';
import { applyAliases, RECORD_FIELDS, recordKey, recordSchema } from './schema';
import type { ApiRecord, ParsedBatch } from './types';

/** How many skip reasons a batch keeps for logs; the count is always exact. */
export const MAX_SKIP_REASONS = 10;

type RawRecord = Readonly<Record<string, unknown>>;

/** Options of `parseRecords`. */
export interface ParseOptions {
  /**
   * The fields something will read (rule conditions, groupBy, summaries, metrics): a live
   * call's other fields are left in `raw` (the record is `partial`), read by `completeRecord`
   * only when a message needs the whole record. Identity, `id` and `created_at` are always
   * read. Payments, of a fixed shape and few fields, are always read whole. A record read
   * whole then carries no `raw`: nothing would read it, and keeping it would keep the whole
   * parsed body alive beside the records (about 20 MB of 100k payments). Absent: every field,
   * and `raw` on every record.
   */
  readonly fields?: ReadonlySet<string>;
}

/** Always read: the identity (and its fallback) and `created_at` (`age`, the lookback). */
const ALWAYS_READ: ReadonlySet<string> = new Set(['id', 'call_id', 'created_at']);

function fieldsToRead(
  source: SourceName,
  fields: ReadonlySet<string> | undefined,
): ReadonlyArray<readonly [string, FieldKind]> {
  const all = RECORD_FIELDS[source];
  if (fields === undefined || source === 'payments') return all;
  const read = all.filter(([name]) => fields.has(name) || ALWAYS_READ.has(name));
  return read.length === all.length ? all : read;
}

function isPlainObject(value: unknown): value is RawRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The common shape, without zod: every known field readable as its kind. `undefined` sends
 * the record to the schema, which finds out what is wrong with it. Same normalisers as the
 * schema, so both paths agree (a property test holds them to it).
 */
function fastRecord(
  source: SourceName,
  raw: RawRecord,
  zone: string,
  read: ReadonlyArray<readonly [string, FieldKind]> = RECORD_FIELDS[source],
  keepRaw = true,
  reader: FieldReader = fieldReader(read),
): ApiRecord | undefined {
  const fields = reader(raw, zone);
  if (fields === undefined) return undefined;
  const key = recordKey(source, fields);
  if (key === undefined) return undefined;
  applyAliases(source, fields, raw, zone);
  const createdAt = fields.created_at;
  if (read !== RECORD_FIELDS[source]) {
    return typeof createdAt === 'number'
      ? { source, key, createdAtMs: createdAt, fields, raw, partial: true }
      : { source, key, fields, raw, partial: true };
  }
  if (!keepRaw) {
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
 * The odd record, through the zod schema. A field it cannot read is left out of `fields`
 * (it stays in `raw`) and the record kept: one bad column must not hide a ringing call. Only a
 * record that is not an object or has no identity is skipped.
 */
function schemaRecord(source: SourceName, raw: unknown, zone: string, keepRaw = true): Outcome {
  if (!isPlainObject(raw)) {
    return {
      reason: `not an object (${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw})`,
    };
  }
  const schema = recordSchema(source, zone);
  let input: Record<string, unknown> = raw;
  // Two passes at most: the second without the fields the first could not read.
  for (let pass = 0; pass < 2; pass += 1) {
    const result = schema.safeParse(input);
    if (result.success) {
      const { key, createdAtMs, fields } = result.data;
      const record: ApiRecord =
        createdAtMs === undefined ? { source, key, fields } : { source, key, createdAtMs, fields };
      return { record: keepRaw ? { ...record, raw } : record };
    }
    const fieldIssues = result.error.issues.filter((issue) => issue.path.length > 0);
    if (fieldIssues.length < result.error.issues.length || pass === 1) {
      const root = result.error.issues.find((issue) => issue.path.length === 0);
      return { reason: root?.message ?? result.error.issues[0]?.message ?? 'unreadable' };
    }
    input = { ...input };
    for (const issue of fieldIssues) delete input[String(issue.path[0])];
  }
  return { reason: 'unreadable' };
}

/**
 * Parses one response body (already JSON-parsed) into records of `source`, reading times in
 * `zone`. Tolerant and honest: values are normalised by field kind, unknown fields are kept in
 * `raw`, and a record that cannot be understood is counted in `skipped` (with the first
 * `MAX_SKIP_REASONS` reasons) instead of failing the batch. With `options.fields`, live calls
 * read only those fields (which records are kept or skipped does not change).
 *
 * @throws NotAnArrayError when the body is not an array.
 * @throws TimeZoneError when `zone` is not an IANA zone.
 */
export function parseRecords(
  source: SourceName,
  body: unknown,
  zone: string,
  options: ParseOptions = {},
): ParsedBatch {
  if (!Array.isArray(body)) throw new NotAnArrayError(body);
  assertTimeZone(zone);
  const read = fieldsToRead(source, options.fields);
  const reader = fieldReader(read);
  const keepRaw = options.fields === undefined;
  const records: ApiRecord[] = [];
  const skipReasons: string[] = [];
  let skipped = 0;
  for (let index = 0; index < body.length; index += 1) {
    const raw: unknown = body[index];
    const fast = !isPlainObject(raw)
      ? undefined
      : source === 'payments'
        ? fastPayment(raw, zone, keepRaw)
        : fastRecord(source, raw, zone, read, keepRaw, reader);
    if (fast) {
      records.push(fast);
      continue;
    }
    // The schema reads every field: the record is whole.
    const outcome = schemaRecord(source, raw, zone, keepRaw);
    if ('record' in outcome) {
      records.push(outcome.record);
    } else {
      skipped += 1;
      if (skipReasons.length < MAX_SKIP_REASONS)
        skipReasons.push(`record ${index}: ${outcome.reason}`);
    }
  }
  return { records, skipped, skipReasons };
}

/**
 * The record with every field read, as `parseRecords` without `fields` makes it: the same
 * record when it is not `partial`.
 */
export function completeRecord(record: ApiRecord, zone: string): ApiRecord {
  if (record.partial !== true || record.raw === undefined) return record;
  const whole = fastRecord(record.source, record.raw, zone);
  if (whole) return whole;
  const outcome = schemaRecord(record.source, record.raw, zone);
  // A partial record had an identity, so the schema keeps it too.
  return 'record' in outcome ? outcome.record : record;
}
