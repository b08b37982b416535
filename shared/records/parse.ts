import { assertTimeZone } from '../time/zone';
import type { SourceName } from '../types/config';
import { RecordBatch } from './batch';
import { NotAnArrayError } from './errors';
import { hasMoneyFields } from './exact-json';
import { sampledHash } from './key-index';
import {
  isPlainObject,
  type RawRecord,
  type RecordPlan,
  readRow,
  recordPlan,
  rowKey,
} from './record';
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
  /**
   * Fields no document names that a rule reads all the same: read as text, like a documented
   * text field. Absent: the names in `fields` that `FIELDS` lacks.
   */
  readonly undocumented?: readonly string[];
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
  return new BatchReader(source, zone, options).end(body);
}

/** Rows' hashes a live-call reader holds at first; doubled as rows come. */
const INITIAL_HASHES = 1024;

/**
 * `readBatch` as an answer's rows arrive: each piece the transport parsed is `push`ed, its
 * rows' identities read (and, for live calls, hashed) while the piece just parsed is still in
 * the processor's cache, instead of in a second walk over 10 MB of rows once the body is whole;
 * `end` takes the whole body and reads any rows no piece brought (a transport that pushes no
 * pieces leaves it all to `end`). Same batch as `readBatch` of the whole body.
 */
export class BatchReader {
  readonly #source: SourceName;
  readonly #plan: RecordPlan;
  readonly #keys: string[] = [];
  /**
   * A live-call poll's identities are indexed to find the calls that repeat (`KeyIndex`):
   * each is hashed while its row is in cache. Payments come in order and rarely need the index.
   */
  #hashes: Uint32Array | undefined;
  /** Rows pushed or read so far: the next row's index in the body. */
  #seen = 0;
  /** The first and last rows pushed: `end` checks that the body starts with them. */
  #first: unknown;
  #last: unknown;
  /** A push failed: `end` reads the whole body afresh (and throws what failed, if it still does). */
  #failed = false;
  /** Indexes of the rows skipped, ascending. */
  readonly #skipped: number[] = [];
  readonly #skipReasons: string[] = [];

  /** Whether the source's records have money fields (a literal to keep exact may come). */
  get hasMoney(): boolean {
    return hasMoneyFields(this.#source);
  }

  /** @throws TimeZoneError when `zone` is not an IANA zone. */
  constructor(source: SourceName, zone: string, options: ParseOptions = {}) {
    assertTimeZone(zone);
    this.#source = source;
    this.#plan = recordPlan(source, zone, options.fields, options.undocumented);
    this.#hashes = source === 'live_calls' ? new Uint32Array(INITIAL_HASHES) : undefined;
  }

  /**
   * The body's next rows, in order. Never throws (it runs inside the transport, where a bug's
   * error would pass for the network's): what fails is left to `end`.
   */
  push(rows: readonly unknown[]): void {
    if (this.#failed || rows.length === 0) return;
    try {
      if (this.#seen === 0) this.#first = rows[0];
      this.#read(rows, 0);
      this.#last = rows[rows.length - 1];
    } catch {
      this.#failed = true;
    }
  }

  /**
   * The batch of `body`, whose first rows are normally those pushed (a body that does not start
   * with them, or a push that failed, is read afresh).
   *
   * @throws NotAnArrayError when the body is not an array.
   */
  end(body: unknown): ParsedBatch {
    if (!Array.isArray(body)) throw new NotAnArrayError(body);
    const seen = this.#seen;
    if (
      this.#failed ||
      (seen > 0 && (body.length < seen || body[0] !== this.#first || body[seen - 1] !== this.#last))
    ) {
      // The pieces were not the start of this body (a transport's bug) or one failed to read:
      // the body is read afresh, as `readBatch` reads it.
      this.#reset();
    }
    this.#read(body, this.#seen);
    const skipped = this.#skipped;
    let rows = body as RawRecord[];
    if (skipped.length > 0) {
      rows = [];
      let next = 0;
      for (let index = 0; index < body.length; index += 1) {
        if (index === skipped[next]) next += 1;
        else rows.push(body[index] as RawRecord);
      }
    }
    const keys = this.#keys;
    return {
      records: RecordBatch.ofRows(this.#plan, rows, keys, this.#hashes?.subarray(0, keys.length)),
      skipped: skipped.length,
      skipReasons: this.#skipReasons,
    };
  }

  #reset(): void {
    this.#keys.length = 0;
    this.#skipped.length = 0;
    this.#skipReasons.length = 0;
    this.#seen = 0;
    this.#failed = false;
  }

  #read(rows: readonly unknown[], from: number): void {
    const source = this.#source;
    const keys = this.#keys;
    for (let at = from; at < rows.length; at += 1) {
      const raw: unknown = rows[at];
      const index = this.#seen;
      this.#seen += 1;
      const key = isPlainObject(raw) ? rowKey(source, raw) : undefined;
      if (key !== undefined) {
        let hashes = this.#hashes;
        if (hashes !== undefined) {
          if (keys.length === hashes.length) {
            hashes = new Uint32Array(hashes.length * 2);
            hashes.set(this.#hashes as Uint32Array);
            this.#hashes = hashes;
          }
          hashes[keys.length] = sampledHash(key);
        }
        keys.push(key);
        continue;
      }
      this.#skipped.push(index);
      if (this.#skipReasons.length < MAX_SKIP_REASONS) {
        const outcome = readRow(this.#plan, raw);
        const reason = 'reason' in outcome ? outcome.reason : 'unreadable';
        this.#skipReasons.push(`record ${index}: ${reason}`);
      }
    }
  }
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
