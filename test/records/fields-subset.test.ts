import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRecords } from '../../shared/records/parse';
import { completeRecord } from '../../shared/records/record';
import type { ApiRecord } from '../../shared/records/types';

const ZONE = 'Asia/Kolkata';

const liveCall = {
  id: 101,
  user_id: 7,
  call_id: 'c-1',
  direction: 1,
  source: '0918000000009',
  type: 'inbound',
  did: '8000000001',
  destination: '+918000000002, 08000000003',
  state: 'Ringing',
  channel_id: 'ch-1',
  created_at: '2026-11-21 10:00:05',
  sip_domain: 'sip.example.com',
  broadcast_no: null,
  call_time: '00:00:12',
  agent_name: ' Asha ',
};

describe('Function: parseRecords with fields', () => {
  it('reads only the asked fields of a live call, with identity and created_at', () => {
    const [record] = parseRecords('live_calls', [liveCall], ZONE, {
      fields: new Set(['state', 'did']),
    }).records;
    expect(record?.partial).toBe(true);
    expect(record?.fields).toEqual({
      id: '101',
      call_id: 'c-1',
      state: 'Ringing',
      did: '+918000000001',
      created_at: record?.createdAtMs,
    });
    expect(record?.raw).toBe(liveCall);
  });

  it('reads payments whole', () => {
    const payment = { id: '5', amount_paid: '10.50', status: 'pending', gateway: 'Razorpay' };
    const [whole] = parseRecords('payments', [payment], ZONE).records;
    const [subset] = parseRecords('payments', [payment], ZONE, {
      fields: new Set(['status']),
    }).records;
    // Read whole, for a caller that named its fields: nothing is left to read from `raw`.
    expect(subset).toEqual(withoutRaw(whole));
    expect(subset).not.toHaveProperty('raw');
  });

  it('keeps and skips the same records as a whole read, with the same values', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.constant({}),
      fc.constant('00:01:02'),
    );
    const row = fc.record(
      {
        id: value,
        call_id: value,
        state: value,
        did: value,
        call_time: value,
        direction: value,
        sip_domain: value,
      },
      { requiredKeys: [] },
    );
    const fields = new Set(['state', 'call_time']);
    fc.assert(
      fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
        const whole = parseRecords('live_calls', rows, ZONE);
        const subset = parseRecords('live_calls', rows, ZONE, { fields });
        expect(subset.skipped).toBe(whole.skipped);
        expect(subset.records.map((r) => r.key)).toEqual(whole.records.map((r) => r.key));
        subset.records.forEach((record, index) => {
          const other = whole.records[index];
          for (const name of ['state', 'call_time', 'call_id', 'id', 'created_at']) {
            expect(record.fields[name]).toEqual(other?.fields[name]);
          }
          const complete = completeRecord(record, ZONE);
          expect(withoutRaw(complete)).toEqual(withoutRaw(other));
        });
      }),
      { numRuns: 500 },
    );
  });
});

function withoutRaw(record: ApiRecord | undefined): Omit<ApiRecord, 'raw'> | undefined {
  if (record === undefined) return undefined;
  const { raw: _raw, ...rest } = record;
  return rest;
}

describe('Function: completeRecord', () => {
  it('reads every field of a partial record as a whole parse does', () => {
    const [partial] = parseRecords('live_calls', [liveCall], ZONE, {
      fields: new Set(['state']),
    }).records;
    const [whole] = parseRecords('live_calls', [liveCall], ZONE).records;
    expect(partial && completeRecord(partial, ZONE)).toEqual(whole);
  });

  it('returns a whole record as it is', () => {
    const [whole] = parseRecords('live_calls', [liveCall], ZONE).records;
    expect(whole && completeRecord(whole, ZONE)).toBe(whole);
  });
});
