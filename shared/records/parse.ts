import type { SourceName } from '../config/types';
import { assertTimeZone } from '../time/zone';
import { RecordBatch } from './batch';
import { NotAnArrayError } from './errors';
import { sampledHash } from './key-index';
import { isPlainObject, type RawRecord, readRow, recordPlan, rowKey } from './record';
import type { ParsedBatch, ParsedRecords } from './types';

/** How many skip reasons a batch keeps for logs; the count is always exact. */
export const MAX_SKIP_REASONS = 10;

/** Options of `readBatch` and `parseRecords`. */
export interface ParseOptions {
  /**
   * The fields something will read (rule conditions, groupBy, summaries, metrics): a live
   * call's other fields are left in `raw` (the record is `partial`), read by `completeRecord`
   * only when a message needs the whole record. Identity, `id` and `created_at` are always
   * read. Payments are always read whole, and then carry no `raw`. Absent: every field, and
   * `raw` on every record.
   */
  readonly fields?: ReadonlySet<string>;
}

/**
 * Reads one response body (already JSON-parsed) as a lazy batch of records of `source`, times
 * read in `zone` (see `RecordBatch`). Tolerant and honest: values are normalised by field kind,
 * unknown fields are kept in `raw`, and a row that cannot be understood (not an object, or no
 * identity) is counted in `skipped`, with the first `MAX_SKIP_REASONS` reasons, instead of
 * failing the batch. Which rows are kept or skipped does not depend on `options.fields`.
 *
 * @throws NotAnArrayError when the body is not an array.
 * @throws TimeZoneError when `zone` is not an IANA zone.
 */
export function readBatch(
  source: SourceName,
  body: unknown,
  zone: string,
  options: ParseOptions = {},
): ParsedBatch {
  if (!Array.isArray(body)) throw new NotAnArrayError(body);
  assertTimeZone(zone);
  const plan = recordPlan(source, zone, options.fields);
  const keys: string[] = [];
  // A live-call poll's identities are indexed to find the calls that repeat (`KeyIndex`): each
  // is hashed here, while the row just read has it in cache. Payments come in order and rarely
  // need the index.
  const hashes = source === 'live_calls' ? new Uint32Array(body.length) : undefined;
  let kept: RawRecord[] | undefined;
  const skipReasons: string[] = [];
  let skipped = 0;
  for (let index = 0; index < body.length; index += 1) {
    const raw: unknown = body[index];
    const key = isPlainObject(raw) ? rowKey(source, raw) : undefined;
    if (key !== undefined) {
      if (hashes !== undefined) hashes[keys.length] = sampledHash(key);
      keys.push(key);
      kept?.push(raw as RawRecord);
      continue;
    }
    // The first skip copies the rows kept so far; an answer without one is used as it is.
    kept ??= body.slice(0, index) as RawRecord[];
    skipped += 1;
    if (skipReasons.length < MAX_SKIP_REASONS) {
      const outcome = readRow(plan, raw);
      const reason = 'reason' in outcome ? outcome.reason : 'unreadable';
      skipReasons.push(`record ${index}: ${reason}`);
    }
  }
  const rows = kept ?? (body as RawRecord[]);
  return {
    records: RecordBatch.ofRows(plan, rows, keys, hashes?.subarray(0, keys.length)),
    skipped,
    skipReasons,
  };
}

/**
 * `readBatch` with every record read at once, as arrays: for timelines, tools and tests, where
 * answers are small and every record is looked at.
 *
 * @throws NotAnArrayError when the body is not an array.
 * @throws TimeZoneError when `zone` is not an IANA zone.
 */
export function parseRecords(
  source: SourceName,
  body: unknown,
  zone: string,
  options: ParseOptions = {},
): ParsedRecords {
  const { records, skipped, skipReasons } = readBatch(source, body, zone, options);
  return { records: records.toArray(), skipped, skipReasons };
}
