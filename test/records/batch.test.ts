import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_RAW_VALUE, RecordBatch } from '../../shared/records/batch';
import { INVALID, normaliseText } from '../../shared/records/normalise';
import { parseRecords, readBatch } from '../../shared/records/parse';
import { completeRecord, readRow, recordPlan } from '../../shared/records/record';
import type { ApiRecord } from '../../shared/records/types';

const ZONE = 'Asia/Kolkata';

/** Values of every shape the API has sent, and some it should not. */
const value = fc.oneof(
  fc.constantFrom('', '  ', 'Pending', ' success ', 'RAZORPAY', '00:01:02', '1500.00', '007.50'),
  fc.constantFrom('21-Nov-2026 10:00:05', '2026-11-21 10:00:05', 'soon', '+918000000001'),
  fc.integer({ min: -3, max: 200_000 }),
  fc.double({ noNaN: true }),
  fc.constant(null),
  fc.constant(true),
  fc.constant({}),
  fc.constant(['8000000001', 8000000002]),
);
const payment = fc.dictionary(
  fc.constantFrom(
    'id',
    'amount_paid',
    'payment_id',
    'created_at',
    'gateway',
    'payment_gateway',
    'status',
    'amount_added',
    'amount_tax',
  ),
  fc.oneof(value, fc.constantFrom('p1', 'p2', 7)),
);
const liveCall = fc.dictionary(
  fc.constantFrom('id', 'call_id', 'state', 'did', 'direction', 'call_time', 'destination'),
  fc.oneof(value, fc.constantFrom('c1', 'c2', 3)),
);
const body = fc.array(fc.oneof(payment, liveCall, value), { maxLength: 8 });

/** Fields of both sources, one neither has, one a live call is read without. */
const FIELDS = ['status', 'gateway', 'amount_paid', 'state', 'did', 'call_time', 'nope'];

/** A batch whose plan reads only `state` of a live call (payments are read whole). */
const readOnlyState = (source: 'payments' | 'live_calls', rows: unknown[]) =>
  readBatch(source, rows, ZONE, { fields: new Set(['state']) }).records;

describe('Class: RecordBatch', () => {
  describe('Function: readBatch', () => {
    it('keeps, skips and reads the records parseRecords reads, row by row', () => {
      fc.assert(
        fc.property(fc.constantFrom('payments', 'live_calls'), body, (source, rows) => {
          const lazy = readBatch(source, rows, ZONE);
          const outcomes = rows.map((row) => readRow(recordPlan(source, ZONE, undefined), row));
          const records = outcomes.flatMap((o) => ('record' in o ? [o.record] : []));
          const reasons = outcomes.flatMap((o, index) =>
            'reason' in o ? [`record ${index}: ${o.reason}`] : [],
          );
          expect(lazy.skipped).toBe(reasons.length);
          expect(lazy.skipReasons).toEqual(reasons);
          expect(lazy.records.length).toBe(records.length);
          records.forEach((record, index) => {
            expect(lazy.records.key(index)).toBe(record.key);
            expect(lazy.records.createdAtMs(index)).toBe(record.createdAtMs);
          });
          expect(lazy.records.toArray()).toEqual(records);
          expect(parseRecords(source, rows, ZONE).records).toEqual(records);
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('Method: value', () => {
    it('is what the record holds, read before the record or after it', () => {
      fc.assert(
        fc.property(fc.constantFrom('payments', 'live_calls'), body, (source, rows) => {
          const before = readOnlyState(source, rows);
          const after = readOnlyState(source, rows);
          for (let index = 0; index < before.length; index += 1) {
            const values = FIELDS.map((field) => before.value(index, field));
            const record = after.record(index);
            expect(values).toEqual(FIELDS.map((field) => record.fields[field]));
            expect(FIELDS.map((field) => after.value(index, field))).toEqual(values);
          }
        }),
        { numRuns: 2000 },
      );
    });
  });

  describe('Fields no document names', () => {
    it('reads one a rule names as text, alike on every path: fast, schema, value, whole', () => {
      const withQueue = fc
        .tuple(fc.oneof(payment, liveCall), fc.option(value, { nil: undefined }))
        .map(([row, queue]) => (queue === undefined ? row : { ...row, queue_name: queue }));
      fc.assert(
        fc.property(
          fc.constantFrom('payments', 'live_calls'),
          fc.array(withQueue, { maxLength: 6 }),
          (source, rows) => {
            const fields = new Set(['state', 'status', 'queue_name']);
            const lazy = readBatch(source, rows, ZONE, { fields }).records;
            const timeline = readBatch(source, rows, ZONE, {
              undocumented: ['queue_name'],
            }).records;
            expect(timeline.length).toBe(lazy.length);
            const whole = parseRecords(source, rows, ZONE).records;
            expect(whole.map((record) => record.key)).toEqual(lazy.toArray().map((r) => r.key));
            for (let index = 0; index < lazy.length; index += 1) {
              // Read as a text field is: trimmed text, a number or boolean as its text, else none.
              const sent = whole[index]?.raw?.queue_name;
              const text = normaliseText(sent);
              const expected = text === INVALID ? undefined : text;
              const record = lazy.record(index);
              expect(record.fields.queue_name).toEqual(expected);
              expect(lazy.value(index, 'queue_name')).toEqual(expected);
              expect(completeRecord(record, ZONE).fields.queue_name).toEqual(expected);
              expect(timeline.record(index).fields.queue_name).toEqual(expected);
            }
          },
        ),
        { numRuns: 1000 },
      );
    });
  });

  describe('Method: rawValue', () => {
    it('is the same raw value only for rows whose value is the same', () => {
      fc.assert(
        fc.property(fc.constantFrom('payments', 'live_calls'), body, (source, rows) => {
          const records = readOnlyState(source, rows);
          for (const field of FIELDS) {
            for (let i = 0; i < records.length; i += 1) {
              const raw = records.rawValue(i, field);
              if (raw === NO_RAW_VALUE) continue;
              for (let j = 0; j < records.length; j += 1) {
                if (Object.is(records.rawValue(j, field), raw)) {
                  expect(records.value(j, field)).toEqual(records.value(i, field));
                }
              }
            }
          }
        }),
        { numRuns: 2000 },
      );
    });

    it('has no raw value for a field read from two, or one the plan leaves unread', () => {
      const { records } = readBatch(
        'live_calls',
        [{ call_id: 'c1', state: 'Ringing', did: '8000000001' }],
        ZONE,
        { fields: new Set(['state']) },
      );
      expect(records.rawValue(0, 'state')).toBe('Ringing');
      expect(records.rawValue(0, 'did')).toBe(NO_RAW_VALUE);
      const payments = readBatch('payments', [{ id: '1', gateway: 'x' }], ZONE).records;
      expect(payments.rawValue(0, 'gateway')).toBe(NO_RAW_VALUE);
    });

    it('gives null and a missing field as they are: primitives a caller may remember', () => {
      const { records } = readBatch(
        'live_calls',
        [
          { call_id: 'c1', state: null },
          { call_id: 'c2', agent_name: { first: 'Asha' } },
        ],
        ZONE,
        { fields: new Set(['state', 'agent_name']) },
      );
      expect(records.rawValue(0, 'state')).toBeNull();
      expect(records.rawValue(1, 'state')).toBeUndefined();
      expect(records.rawValue(1, 'agent_name')).toBe(NO_RAW_VALUE);
      expect(records.rawValues('agent_name')?.(0)).toBeUndefined();
      expect(records.rawValues('did')).toBeUndefined();
    });
  });

  describe('Method: merge', () => {
    const record = (key: string, state: string): ApiRecord => ({
      source: 'live_calls',
      key,
      fields: { call_id: key, state },
    });

    /** Of two rows, the one whose status sorts last (a stand-in for the engine's rule). */
    const laterStatus = (batch: RecordBatch, a: number, b: number) =>
      String(batch.value(a, 'status')) >= String(batch.value(b, 'status')) ? a : b;

    it('keeps every row of an identity only one answer lists, repeats included', () => {
      const first = RecordBatch.of([record('a', 'ringing'), record('a', 'queued')]);
      const second = RecordBatch.of([record('b', 'ringing')]);
      const merged = RecordBatch.merge([first, second], laterStatus);
      expect(merged.toArray().map((r) => [r.key, r.fields.state])).toEqual([
        ['a', 'ringing'],
        ['a', 'queued'],
        ['b', 'ringing'],
      ]);
    });

    it('keeps the one row the preference picks of an identity several answers list, in either order', () => {
      const rows = (ids: string[], status: string) => ids.map((id) => ({ id, status }));
      const pending = readBatch('payments', rows(['1', '2'], 'pending'), ZONE).records;
      const success = readBatch('payments', rows(['2', '3'], 'success'), ZONE).records;
      for (const answers of [
        [pending, success],
        [success, pending],
      ]) {
        const merged = RecordBatch.merge(answers, laterStatus);
        const told = merged.toArray().map((r) => `${r.key} ${r.fields.status}`);
        expect(told.sort()).toEqual(['1 pending', '2 success', '3 success']);
      }
    });

    it('picks among every row of an identity, the repeats of one answer included', () => {
      const rows = (statuses: string[]) => statuses.map((status) => ({ id: '1', status }));
      const first = readBatch('payments', rows(['a', 'c']), ZONE).records;
      const second = readBatch('payments', rows(['b']), ZONE).records;
      for (const answers of [
        [first, second],
        [second, first],
      ]) {
        const merged = RecordBatch.merge(answers, laterStatus);
        expect(merged.toArray().map((r) => r.fields.status)).toEqual(['c']);
      }
    });

    it('keeps every row of every answer without a preference', () => {
      const first = RecordBatch.of([record('a', 'ringing')]);
      const second = RecordBatch.of([record('a', 'answered'), record('b', 'ringing')]);
      const merged = RecordBatch.merge([first, second]);
      expect(merged.toArray().map((r) => [r.key, r.fields.state])).toEqual([
        ['a', 'ringing'],
        ['a', 'answered'],
        ['b', 'ringing'],
      ]);
    });

    it('merges raw answers read alike without reading their records', () => {
      const rows = (ids: string[]) => ids.map((id) => ({ id, status: 'pending' }));
      const first = readBatch('payments', rows(['1', '2']), ZONE).records;
      const second = readBatch('payments', rows(['2', '3']), ZONE).records;
      const merged = RecordBatch.merge([first, second], laterStatus);
      expect([0, 1, 2].map((index) => merged.key(index))).toEqual(['1', '2', '3']);
      // Still raw rows: a field is read from the row, no record was built to merge.
      expect(merged.rawValue(2, 'status')).toBe('pending');
      expect(merged.scanRows(['status']).mode).toBe('raw');
      expect(merged.toArray()).toEqual([
        ...first.toArray(),
        ...second.toArray().filter((r) => r.key === '3'),
      ]);
    });

    it('is an empty batch for no answers', () => {
      expect(RecordBatch.merge([]).length).toBe(0);
    });
  });

  describe('Method: select', () => {
    it('keeps the rows asked, in the order asked', () => {
      const rows = ['1', '2', '3'].map((id) => ({ id, status: `s${id}` }));
      const { records } = readBatch('payments', rows, ZONE);
      const picked = records.select([2, 0]);
      expect(picked.toArray().map((r) => [r.key, r.fields.status])).toEqual([
        ['3', 's3'],
        ['1', 's1'],
      ]);
    });
  });
});
