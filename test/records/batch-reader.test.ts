import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotAnArrayError } from '../../shared/records/errors';
import { BatchReader, readBatch } from '../../shared/records/parse';
import type { ParsedBatch } from '../../shared/records/types';
import { TimeZoneError } from '../../shared/time/errors';
import { cutAt } from '../support/pieces';

const ZONE = 'Asia/Kolkata';

/** What a batch says, comparable: its records, identities, repeats, skips. */
function summary(parsed: ParsedBatch) {
  const { records } = parsed;
  return {
    records: records.toArray(),
    keys: Array.from({ length: records.length }, (_, index) => records.key(index)),
    repeats: records.length === 0 ? undefined : records.keyIndex().repeats,
    skipped: parsed.skipped,
    skipReasons: parsed.skipReasons,
  };
}

// Live calls with few distinct ids (so some repeat), some without an id, some not objects.
const callId = fc.oneof(
  fc.constantFrom('c-1', 'c-2', ' c-3 ', 'c-40', 7, 7.5, '', null),
  fc.uuid(),
);
const liveRow = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        call_id: callId,
        id: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(null)),
        state: fc.constantFrom('Ringing', 'Answered', ' ringing '),
        created_at: fc.constantFrom('2026-11-21 10:00:05', 'yesterday', ''),
        call_time: fc.constantFrom('00:00:12', '12', 'x'),
      },
      { requiredKeys: ['state'] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, 3, 'row', [1, 2]) },
);
const paymentRow = fc.record(
  {
    id: fc.oneof(fc.integer({ min: 1, max: 50 }).map(String), fc.constant('')),
    amount_paid: fc.constantFrom('100.00', '19999.5', 'abc'),
    status: fc.constantFrom('success', 'pending'),
    created_at: fc.constantFrom('21-Nov-2026 10:00:05', '2026-11-21 10:00:05'),
  },
  { requiredKeys: ['status'] },
);
const fields = fc.constantFrom(undefined, new Set(['state']), new Set(['call_time', 'agent_name']));

describe('Class: BatchReader', () => {
  it('reads rows pushed piece by piece into the batch readBatch reads from the whole body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record({
            source: fc.constant('live_calls' as const),
            rows: fc.array<unknown>(liveRow),
          }),
          fc.record({
            source: fc.constant('payments' as const),
            rows: fc.array<unknown>(paymentRow),
          }),
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        fields,
        fc.nat(),
        ({ source, rows }, cuts, only, held) => {
          const options = only === undefined ? {} : { fields: only };
          const reader = new BatchReader(source, ZONE, options);
          const parts = cutAt(rows, cuts);
          // The last pieces may never be pushed: `end` reads whatever no piece brought.
          for (const part of parts.slice(0, parts.length - (held % 2))) reader.push(part);
          expect(summary(reader.end(rows))).toEqual(
            summary(readBatch(source, rows, ZONE, options)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hashes the identities of more live calls than it first makes room for', () => {
    const rows = Array.from({ length: 5000 }, (_, n) => ({ call_id: `c-${n % 4000}` }));
    const reader = new BatchReader('live_calls', ZONE);
    for (let from = 0; from < rows.length; from += 700) reader.push(rows.slice(from, from + 700));
    const batch = reader.end(rows).records;
    expect(batch.length).toBe(5000);
    // 1000 calls have two rows each: the index found them through the hashes.
    expect(Array.from(batch.keyIndex().repeats ?? []).filter((r) => r === 1)).toHaveLength(2000);
    expect(batch.keyIndex().rowsOf('c-3999')).toEqual([3999]);
  });

  it('counts skipped rows by their place in the whole body, across pieces', () => {
    const reader = new BatchReader('live_calls', ZONE);
    const rows = [{ call_id: 'a' }, null, { call_id: 'b' }, { state: 'Ringing' }];
    reader.push(rows.slice(0, 2));
    reader.push(rows.slice(2));
    const parsed = reader.end(rows);
    expect(parsed.skipped).toBe(2);
    expect(parsed.skipReasons.map((reason) => reason.split(':')[0])).toEqual([
      'record 1',
      'record 3',
    ]);
    expect(parsed.records.toArray().map((record) => record.key)).toEqual(['a', 'b']);
  });

  it('refuses a body that is not an array', () => {
    expect(() => new BatchReader('payments', ZONE).end({ rows: [] })).toThrow(NotAnArrayError);
  });

  it('reads the body afresh when the rows pushed are not its start', () => {
    const body = [{ id: '1' }, { id: '2' }];
    const shorter = new BatchReader('payments', ZONE);
    shorter.push([{ id: '7' }, { id: '8' }, { id: '9' }]);
    expect(summary(shorter.end(body))).toEqual(summary(readBatch('payments', body, ZONE)));
    const other = new BatchReader('payments', ZONE);
    other.push([{ id: 'x' }]);
    expect(summary(other.end(body))).toEqual(summary(readBatch('payments', body, ZONE)));
  });

  it('never throws from push: what fails to read fails in end, outside the transport', () => {
    const row = {
      get call_id(): string {
        throw new Error('a getter that throws');
      },
    };
    const reader = new BatchReader('live_calls', ZONE);
    expect(() => reader.push([{ call_id: 'a' }, row])).not.toThrow();
    expect(() => reader.end([{ call_id: 'a' }, row])).toThrow('a getter that throws');
  });

  it('skips the holes of a sparse body like any row that is not an object', () => {
    const body = [{ call_id: 'a' }, undefined, 5, { call_id: 'b' }];
    delete body[1];
    const parsed = readBatch('live_calls', body, ZONE);
    expect(parsed.records.toArray().map((record) => record.key)).toEqual(['a', 'b']);
    expect(parsed.skipped).toBe(2);
  });

  it('refuses an unknown time zone before any row', () => {
    expect(() => new BatchReader('live_calls', 'Mars/Olympus')).toThrow(TimeZoneError);
  });
});
