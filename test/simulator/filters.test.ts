import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDecimal, parseDecimal } from '../../shared/money/decimal';
import { canonicalPhone, canonicalPhones } from '../../shared/records/phone';
import { ManualClock } from '../../simulator/clock';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { get, getRecords, istText, MINUTE, paymentTimeIst, START_MS } from './helpers';

const PAYMENTS = '/v1/billing/payments/online';
let sim: RunningSimulator;
let calls: Record<string, unknown>[];
let payments: Record<string, unknown>[];

beforeAll(async () => {
  const clock = new ManualClock(START_MS);
  sim = await startSimulator({ clock, scenario: 'busy-evening', seed: 7 });
  // Two and a half hours in: dozens of payments, and a ringing spike live on the spike DID.
  clock.advance(150 * MINUTE + 90_000);
  calls = await getRecords(sim, '/v1/live_calls');
  payments = await getRecords(sim, PAYMENTS);
});
afterAll(() => sim.close());

const query = (params: Record<string, string>): string => `?${new URLSearchParams(params)}`;
const ids = (records: Record<string, unknown>[]): string[] => records.map((r) => String(r.id));
/** Every number on a call: the agents it rings (inbound) or the agent calling (outbound). */
const numbersOf = (record: Record<string, unknown>): string[] => [
  canonicalPhone(String(record.source)),
  ...canonicalPhones(String(record.destination ?? '')),
];
const callKeys = (records: Record<string, unknown>[]): string[] =>
  records.map((r) => `${r.call_id}|${r.destination}`);

describe('GET /v1/live_calls filters', () => {
  it('has enough live calls to make the filters meaningful', () => {
    expect(calls.length).toBeGreaterThan(10);
  });

  it.each([['+918000000001'], ['918000000001'], ['08000000001'], ['8000000001']])(
    'filters by did_number written as %s, matching every format of it',
    async (written) => {
      const answer = await getRecords(sim, `/v1/live_calls${query({ did_number: written })}`);
      const expected = calls.filter((r) => canonicalPhone(String(r.did)) === '+918000000001');
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(calls.length);
      expect(callKeys(answer)).toEqual(callKeys(expected));
    },
  );

  it('filters by agent_number among every agent a call rings', async () => {
    const answer = await getRecords(sim, `/v1/live_calls${query({ agent_number: '09876500003' })}`);
    const expected = calls.filter((r) => numbersOf(r).includes('+919876500003'));
    expect(answer.length).toBeGreaterThan(0);
    expect(callKeys(answer)).toEqual(callKeys(expected));
  });

  it('filters by extension', async () => {
    const answer = await getRecords(sim, `/v1/live_calls${query({ extension: '105' })}`);
    expect(answer.length).toBeGreaterThan(0);
    for (const record of answer) {
      expect(numbersOf(record)).toContain('+919876500005');
    }
  });

  it('filters by call_id', async () => {
    const target = calls[3];
    const answer = await getRecords(
      sim,
      `/v1/live_calls${query({ call_id: String(target?.call_id) })}`,
    );
    expect(answer.length).toBeGreaterThan(0);
    expect(answer.every((r) => r.call_id === target?.call_id)).toBe(true);
  });

  it('answers [] when no call matches', async () => {
    expect(await getRecords(sim, `/v1/live_calls${query({ call_id: 'no-such-call' })}`)).toEqual(
      [],
    );
  });
});

describe('GET /v1/billing/payments/online date range', () => {
  it('has enough payments to make the range meaningful', () => {
    expect(payments.length).toBeGreaterThan(20);
  });

  it('keeps both bounds inclusive with Y-m-d H:i:s', async () => {
    const times = payments.map((p) => paymentTimeIst(p.created_at)).sort((a, b) => a - b);
    const from = times[5] ?? 0;
    const to = times[15] ?? 0;
    const answer = await getRecords(
      sim,
      `${PAYMENTS}${query({ from_date: istText(from), to_date: istText(to) })}`,
    );
    const expected = payments.filter((p) => {
      const at = paymentTimeIst(p.created_at);
      return at >= from && at <= to;
    });
    expect(answer.length).toBeGreaterThanOrEqual(11);
    expect(ids(answer).sort()).toEqual(ids(expected).sort());
  });

  it('reads a yyyy-mm-dd to_date as the whole day and from_date as its start', async () => {
    const answer = await getRecords(
      sim,
      `${PAYMENTS}${query({ from_date: '2026-11-21', to_date: '2026-11-21' })}`,
    );
    expect(ids(answer).sort()).toEqual(ids(payments).sort());
    const dayBefore = await getRecords(sim, `${PAYMENTS}${query({ to_date: '2026-11-20' })}`);
    expect(dayBefore).toEqual([]);
  });

  it('accepts a from_date alone', async () => {
    const from = START_MS + 60 * MINUTE;
    const answer = await getRecords(sim, `${PAYMENTS}${query({ from_date: istText(from) })}`);
    const expected = payments.filter((p) => paymentTimeIst(p.created_at) >= from);
    expect(ids(answer).sort()).toEqual(ids(expected).sort());
  });
});

describe('GET /v1/billing/payments/online amount and operator', () => {
  const compare = {
    '>': (o: number) => o > 0,
    '<': (o: number) => o < 0,
    '>=': (o: number) => o >= 0,
    '<=': (o: number) => o <= 0,
    '<>': (o: number) => o !== 0,
  } as const;

  it.each(Object.keys(compare) as (keyof typeof compare)[])(
    'compares amount_paid exactly with %s, trailing zeros and all',
    async (operator) => {
      const pivotText = String(payments[10]?.amount_paid);
      const pivot = parseDecimal(pivotText);
      if (!pivot) throw new Error(`unreadable pivot ${pivotText}`);
      // Written with extra trailing zeros: exact comparison must still find it equal.
      const written = pivotText.includes('.') ? `${pivotText}000` : `${pivotText}.000`;
      const answer = await getRecords(sim, `${PAYMENTS}${query({ amount: written, operator })}`);
      const expected = payments.filter((p) => {
        const paid = parseDecimal(p.amount_paid);
        return paid !== undefined && compare[operator](compareDecimal(paid, pivot));
      });
      expect(ids(answer).sort()).toEqual(ids(expected).sort());
    },
  );

  it.each([
    [{ amount: '100' }, /amount and operator/],
    [{ operator: '>' }, /amount and operator/],
    [{ amount: '100', operator: '=' }, /operator/],
    [{ amount: '100', operator: '!=' }, /operator/],
    [{ amount: 'lots', operator: '>' }, /amount/],
    [{ from_date: '21-11-2026' }, /from_date/],
    [{ to_date: '2026-02-30' }, /to_date/],
    [{ from_date: '2026-11-21 25:00:00' }, /from_date/],
  ])('answers 400 with a JSON reason for %o', async (params, reason) => {
    const answer = await get(sim, `${PAYMENTS}${query(params)}`);
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text) as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toMatch(reason);
  });
});
