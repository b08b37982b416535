import type { PreferRow, RecordBatch } from '../records/batch';
import { completeRecord } from '../records/record';
import type { SourceName } from '../types/config';

/*
 * One answer may list one payment twice with different values (`pending`, then `success`), and
 * two answers of one poll (the planner's windows and amounts) may each list it. Which row counts
 * must not depend on where the rows stand in an answer or which answer came first, or an alert
 * would flap with the API's order: this picks one by content. (Several rows of one live call
 * are `RecordObservation`'s candidates.)
 */

/**
 * A payment's status by how far it has got: `success` (settled) above any other status (e.g.
 * `failed`), above `pending`, above none. A payment does not go back to pending, so of two
 * rows the more advanced is the newer news.
 */
function statusRank(status: unknown): number {
  if (typeof status !== 'string' || status === '') return 0;
  const folded = status.toLowerCase();
  if (folded === 'success') return 3;
  return folded === 'pending' ? 1 : 2;
}

/** 1 when row `index` has a `payment_id` (a pending payment has none yet), else 0. */
function paid(records: RecordBatch, index: number): number {
  const id = records.value(index, 'payment_id');
  return id === undefined || id === '' ? 0 : 1;
}

/** A row's every field as one text, names in order: equal for rows that tell the same. */
function contentOf(records: RecordBatch, index: number, zone: string): string {
  const { fields } = completeRecord(records.record(index), zone);
  return JSON.stringify(
    Object.keys(fields)
      .sort()
      .map((name) => [name, fields[name]]),
  );
}

/**
 * Of rows `a` and `b` of one payment in one answer, the one that counts: the more advanced
 * status (`statusRank`), then the one with a `payment_id`, then the one whose fields, as text,
 * come first; either when they tell the same. Only repeated identities get here (rare), so
 * reading whole records is fine.
 */
export function preferredPayment(records: RecordBatch, a: number, b: number, zone: string): number {
  const rank = statusRank(records.value(a, 'status')) - statusRank(records.value(b, 'status'));
  if (rank !== 0) return rank > 0 ? a : b;
  const settled = paid(records, a) - paid(records, b);
  if (settled !== 0) return settled > 0 ? a : b;
  return contentOf(records, a, zone) <= contentOf(records, b, zone) ? a : b;
}

/**
 * How `RecordBatch.merge` picks among the rows several answers of one poll give one identity:
 * for payments `preferredPayment`; live calls are asked once a poll, and were they asked more
 * often, every row would be a candidate as inside one answer (none picked).
 */
export function preferredRow(source: SourceName, zone: string): PreferRow | undefined {
  if (source !== 'payments') return undefined;
  return (records, a, b) => preferredPayment(records, a, b, zone);
}
