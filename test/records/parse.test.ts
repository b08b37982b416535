import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileWhere } from '../../shared/conditions/compile';
import { formatDecimal, parseDecimal } from '../../shared/money/decimal';
import { NotAnArrayError } from '../../shared/records/errors';
import { canonicalMoney } from '../../shared/records/normalise';
import { MAX_SKIP_REASONS, parseRecords } from '../../shared/records/parse';
import { TimeZoneError } from '../../shared/time/errors';
import { cond } from '../engine/fixtures';
import { recordSchema, zodReading } from './zod-reference';

const ZONE = 'Asia/Kolkata';

const liveCall = {
  id: 101,
  user_id: 7,
  client_id: null,
  call_id: 'c-1',
  direction: 1,
  source: '+918000000009',
  type: 'inbound',
  did: '+918000000001',
  multiple_destination_type: '',
  multiple_destination_name: '',
  destination: '+918000000002',
  state: 'Ringing',
  channel_id: 'ch-1',
  created_at: '2026-11-21 10:00:05',
  sip_domain: 'sip.example.com',
  broadcast_id: null,
  broadcast_no: null,
  call_time: '00:00:12',
  agent_name: 'Asha',
};

const payment = {
  id: '5001',
  amount_paid: '100000.10',
  payment_id: 'pay_abc',
  created_at: '21-Nov-2026 10:00:05',
  gateway: 'Razorpay',
  status: 'success',
  amount_added: 84746.5,
  amount_tax: 15253.6,
};

describe('Function: parseRecords', () => {
  it('normalises a documented live call by field kind and keeps it raw', () => {
    const batch = parseRecords('live_calls', [liveCall], ZONE);
    expect(batch.skipped).toBe(0);
    const [record] = batch.records;
    expect(record?.key).toBe('c-1');
    expect(record?.createdAtMs).toBe(Date.parse('2026-11-21T04:30:05Z'));
    expect(record?.fields).toMatchObject({
      id: '101',
      user_id: '7',
      direction: 1,
      did: '+918000000001',
      destination: ['+918000000002'],
      state: 'Ringing',
      call_time: 12,
      created_at: Date.parse('2026-11-21T04:30:05Z'),
    });
    expect(record?.fields).not.toHaveProperty('client_id');
    expect(record?.raw).toBe(batch.records[0]?.raw);
    expect(record?.raw).toEqual(liveCall);
  });

  it('accepts the drift the API is known for on live calls', () => {
    const drifted = {
      ...liveCall,
      id: '101',
      call_id: 9876,
      direction: 'Inbound',
      state: ' RINGING ',
      did: '8000000001',
      source: 918000000009,
      destination: '08000000002, +918000000003',
      call_time: '75',
      created_at: '21-nov-2026 10:00:05',
      recording_url: 'https://example.com/r.mp3',
    };
    const [record] = parseRecords('live_calls', [drifted], ZONE).records;
    expect(record?.key).toBe('9876');
    expect(record?.fields).toMatchObject({
      direction: 1,
      state: 'RINGING',
      did: '+918000000001',
      source: '+918000000009',
      destination: ['+918000000002', '+918000000003'],
      call_time: 75,
      created_at: Date.parse('2026-11-21T04:30:05Z'),
    });
    expect(record?.fields).not.toHaveProperty('recording_url');
    expect(record?.raw?.recording_url).toBe('https://example.com/r.mp3');
  });

  it('keeps a phone field that is no phone number as sent, so it equals no number', () => {
    const odd = { ...liveCall, did: '+91 abc', destination: '+91 abc, 8000000002' };
    const [record] = parseRecords('live_calls', [odd], ZONE).records;
    expect(record?.fields).toMatchObject({
      did: '+91 abc',
      destination: ['+91 abc', '+918000000002'],
    });
    if (record === undefined) throw new Error('expected the record');
    const where = (did: string) => compileWhere('live_calls', { did: cond(did) }, ZONE);
    expect(where('91')(record, 0)).toBe(false);
    expect(where('<> 91')(record, 0)).toBe(true);
  });

  it('normalises payments: exact money, gateway alias, empty payment_id while pending', () => {
    const pending = {
      id: 5002,
      amount_paid: 1500,
      payment_id: '',
      created_at: '2026-11-21 10:00:05',
      payment_gateway: 'Instamojo',
      status: 'PENDING',
      amount_added: '1271.19',
      amount_tax: '228.810',
    };
    const batch = parseRecords('payments', [payment, pending], ZONE);
    expect(batch.skipped).toBe(0);
    expect(batch.records[0]?.fields).toMatchObject({
      amount_paid: '100000.1',
      amount_added: '84746.5',
      gateway: 'Razorpay',
    });
    expect(batch.records[1]?.key).toBe('5002');
    expect(batch.records[1]?.fields).toMatchObject({
      amount_paid: '1500',
      amount_tax: '228.81',
      payment_id: '',
      gateway: 'Instamojo',
      status: 'PENDING',
    });
  });

  it('gives one key to a decimal-shaped call_id sent as a string and as a number', () => {
    const asText = parseRecords(
      'live_calls',
      [{ call_id: '1763700259.430', state: 'Ringing' }],
      ZONE,
    );
    const asNumber = parseRecords(
      'live_calls',
      [{ call_id: 1763700259.43, state: 'Ringing' }],
      ZONE,
    );
    expect(asText.records[0]?.key).toBe('1763700259.43');
    expect(asNumber.records[0]?.key).toBe(asText.records[0]?.key);
  });

  it('reads payment_gateway when gateway is present but blank, on both parsing paths', () => {
    const payment = {
      id: '9',
      amount_paid: '10.00',
      payment_id: '',
      created_at: '21-Nov-2026 10:00:00',
      status: 'pending',
      gateway: '',
      payment_gateway: 'Instamojo',
    };
    const fast = parseRecords('payments', [payment], ZONE);
    const odd = parseRecords('payments', [{ ...payment, amount_added: { odd: true } }], ZONE);
    expect(fast.records[0]?.fields.gateway).toBe('Instamojo');
    expect(odd.records[0]?.fields.gateway).toBe('Instamojo');
  });

  it('falls back to id:<id> for a live call without call_id', () => {
    const { call_id: _dropped, ...noCallId } = liveCall;
    const [record] = parseRecords('live_calls', [noCallId], ZONE).records;
    expect(record?.key).toBe('id:101');
  });

  it('skips and counts records it cannot understand, keeping the rest', () => {
    const { id: _id, ...noId } = payment;
    const body = [
      payment,
      'oops',
      null,
      [1],
      noId,
      { ...payment, id: '  ' },
      { ...payment, id: '9' },
    ];
    const batch = parseRecords('payments', body, ZONE);
    expect(batch.records.map((r) => r.key)).toEqual(['5001', '9']);
    expect(batch.skipped).toBe(5);
    expect(batch.skipReasons).toEqual([
      'record 1: not an object (string)',
      'record 2: not an object (null)',
      'record 3: not an object (array)',
      'record 4: no id',
      'record 5: no id',
    ]);
  });

  it('keeps a record with an unreadable field, leaving that field out', () => {
    const odd = {
      ...payment,
      amount_paid: 'lots',
      created_at: 'yesterday',
      gateway: { name: 'x' },
    };
    const batch = parseRecords('payments', [odd], ZONE);
    expect(batch.skipped).toBe(0);
    const [record] = batch.records;
    expect(record?.key).toBe('5001');
    expect(record?.createdAtMs).toBeUndefined();
    expect(record?.fields).not.toHaveProperty('amount_paid');
    expect(record?.fields).not.toHaveProperty('gateway');
    expect(record?.fields.status).toBe('success');
    expect(record?.raw?.amount_paid).toBe('lots');
  });

  it('keeps at most MAX_SKIP_REASONS reasons but counts every skip', () => {
    const body = Array.from({ length: 25 }, () => 42);
    const batch = parseRecords('live_calls', body, ZONE);
    expect(batch.skipped).toBe(25);
    expect(batch.skipReasons).toHaveLength(MAX_SKIP_REASONS);
  });

  it('parses an empty array as an empty batch', () => {
    expect(parseRecords('live_calls', [], ZONE)).toEqual({
      records: [],
      skipped: 0,
      skipReasons: [],
    });
  });

  it('throws NotAnArrayError for a body that is not an array', () => {
    for (const body of [{ success: false, message: 'no' }, '<html>', null, 3]) {
      expect(() => parseRecords('payments', body, ZONE)).toThrow(NotAnArrayError);
    }
    expect(() => parseRecords('payments', { a: 1 }, ZONE)).toThrow(/got an object/);
  });

  it('throws TimeZoneError for an unknown zone', () => {
    expect(() => parseRecords('payments', [], 'Nowhere/Land')).toThrow(TimeZoneError);
  });

  it('reads every record as the zod schema it replaced did, on the fast path and field by field', () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constantFrom(
        '2026-11-21 10:00:05',
        '21-NOV-2026 23:59:59',
        '00:01:02',
        ' 12.50 ',
        'inbound',
        '+91 80000 00001, 8000000002',
      ),
      // Shapes some kinds refuse: a list (phones take one of phones), an object.
      fc.array(
        fc.oneof(fc.constantFrom('+918000000001', ' 8000000002'), fc.integer(), fc.boolean()),
        {
          maxLength: 3,
        },
      ),
      fc.constant({ name: 'x' }),
    );
    const record = fc.record(
      {
        id: value,
        call_id: value,
        amount_paid: value,
        amount_added: value,
        created_at: value,
        call_time: value,
        direction: value,
        destination: value,
        did: value,
        state: value,
        gateway: value,
        payment_gateway: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(record, fc.constantFrom('live_calls', 'payments'), (raw, source) => {
        const batch = parseRecords(source, [raw], ZONE);
        const result = recordSchema(source, ZONE).safeParse(raw);
        if (result.success) {
          expect(batch.records[0]?.key).toBe(result.data.key);
          expect(batch.records[0]?.fields).toEqual(result.data.fields);
          expect(batch.records[0]?.createdAtMs).toBe(result.data.createdAtMs);
        }
        // Whatever the schema refused: the parser keeps what its second pass kept (the
        // record without its unreadable fields), or skips it for the same reason.
        const reading = zodReading(source, raw, ZONE);
        if ('record' in reading) {
          expect(batch.skipped).toBe(0);
          expect(batch.records[0]?.key).toBe(reading.record.key);
          expect(batch.records[0]?.fields).toEqual(reading.record.fields);
          expect(batch.records[0]?.createdAtMs).toBe(reading.record.createdAtMs);
        } else {
          expect(batch.records).toEqual([]);
          expect(batch.skipReasons).toEqual([`record 0: ${reading.reason}`]);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('Function: canonicalMoney', () => {
  it('agrees with formatDecimal(parseDecimal(x)) for every plain decimal text and number', () => {
    const text = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^\d{1,12}$/),
        fc.option(fc.stringMatching(/^\d{0,6}$/), { nil: undefined }),
      )
      .map(
        ([negative, whole, fraction]) =>
          `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`,
      );
    fc.assert(
      fc.property(
        fc.oneof(
          text,
          fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e14, max: 1e14 }),
          fc.integer({ min: -(10 ** 15), max: 10 ** 15 }).map((cents) => cents / 100),
        ),
        (input) => {
          const decimal = parseDecimal(input);
          expect(canonicalMoney(input)).toBe(decimal && formatDecimal(decimal));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
