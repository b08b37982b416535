import type { SourceName } from '../types/config';
import type { RecordBatch } from './batch';

/**
 * A normalised field value. The kind of each field (see `fields.ts`) fixes which shape it has:
 * text/phone/money -> string (money as a canonical decimal string), number/duration/direction
 * -> number (durations in seconds), time -> epoch milliseconds, a phone list -> string[].
 */
export type FieldValue = string | number | readonly string[];

/**
 * One API record, parsed tolerantly. `raw` is exactly what the API sent, unknown fields kept;
 * a caller that names the fields it reads (`ParseOptions.fields`) gets it only on `partial`
 * records, the ones with fields left to read from it.
 */
export interface ApiRecord {
  readonly source: SourceName;
  /** Identity of the record: `call_id` for live calls, `id` for payments. */
  readonly key: string;
  /** `created_at` as UTC epoch ms, read in the configured zone; undefined when absent. */
  readonly createdAtMs?: number;
  readonly fields: Readonly<Record<string, FieldValue>>;
  readonly raw?: Readonly<Record<string, unknown>>;
  /**
   * `fields` holds only the fields asked of the parser (`ParseOptions.fields`), identity and
   * `created_at` included; `completeRecord` reads the rest from `raw`. Absent: every field.
   */
  readonly partial?: true;
}

/** What a parser made of one response body: its records read lazily (`readBatch`). */
export interface ParsedBatch {
  readonly records: RecordBatch;
  /** Records that could not be understood and were left out. */
  readonly skipped: number;
  /** The first few reasons, for logs; never a token. */
  readonly skipReasons: readonly string[];
}

/** What a parser made of one response body, every record read (`parseRecords`). */
export interface ParsedRecords {
  readonly records: readonly ApiRecord[];
  /** Records that could not be understood and were left out. */
  readonly skipped: number;
  /** The first few reasons, for logs; never a token. */
  readonly skipReasons: readonly string[];
}

/** Why a poll failed; plain data so it can sit in timelines and state. */
export interface PollFailure {
  readonly kind: 'auth' | 'http' | 'network' | 'timeout' | 'body' | 'rate-limited';
  readonly status?: number;
  readonly message: string;
}

/** One poll of one source, the engine's input. */
export type PollResult =
  | { readonly ok: true; readonly records: RecordBatch; readonly skipped: number }
  | { readonly ok: false; readonly error: PollFailure };
