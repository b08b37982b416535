import { describe, expect, it } from 'vitest';
import { canonicalPhone } from '../../shared/records/phone';
import { generateLiveCalls, generatePayments } from '../../simulator/generate';
import { liveCallsAt, paymentsAt, type ScenarioRun } from '../../simulator/scenario-run';
import { SPIKE_CALLS, SPIKE_DID, SPIKE_OFFSET_MS } from '../../simulator/scenarios/busy-evening';
import {
  SCENARIO_DESCRIPTIONS,
  SCENARIO_NAMES,
  SCENARIOS,
  type ScenarioName,
} from '../../simulator/scenarios/index';
import { LARGE_AT_MS, LARGE_PAISE, STUCK_AT_MS } from '../../simulator/scenarios/stuck-payment';
import { MINUTE, paymentTimeIst, START_MS, statusOf } from './helpers';

const ZONE = 'Asia/Kolkata';
const run = (name: ScenarioName, seed = 1, startMs = START_MS): ScenarioRun => ({
  scenario: SCENARIOS[name],
  startMs,
  seed,
  zone: ZONE,
});
const records = <T extends { record: Record<string, unknown> }>(items: T[]) =>
  items.map((item) => item.record);

describe('SCENARIOS', () => {
  it('names quiet, busy-evening and stuck-payment, each with a one-line description', () => {
    expect(SCENARIO_NAMES).toEqual(['quiet', 'busy-evening', 'stuck-payment']);
    for (const name of SCENARIO_NAMES) {
      expect(SCENARIOS[name].name).toBe(name);
      expect(SCENARIO_DESCRIPTIONS[name]).toMatch(/^[^\n]{10,120}$/);
    }
  });

  it.each(SCENARIO_NAMES)('%s is deterministic for a seed and differs across seeds', (name) => {
    const at = START_MS + 95 * MINUTE;
    const one = JSON.stringify([
      records(liveCallsAt(run(name, 3), at)),
      records(paymentsAt(run(name, 3), at)),
    ]);
    const again = JSON.stringify([
      records(liveCallsAt(run(name, 3), at)),
      records(paymentsAt(run(name, 3), at)),
    ]);
    const other = JSON.stringify([
      records(liveCallsAt(run(name, 4), at)),
      records(paymentsAt(run(name, 4), at)),
    ]);
    expect(again).toBe(one);
    expect(other).not.toBe(one);
  });

  it('starts at the clock start whatever the clock: nothing exists before it', () => {
    expect(liveCallsAt(run('busy-evening'), START_MS - 1)).toEqual([]);
    expect(paymentsAt(run('busy-evening'), START_MS - 1)).toEqual([]);
    const later = START_MS + 86_400_000 * 400;
    const shifted = liveCallsAt(run('busy-evening', 1, later), later + 5 * MINUTE);
    expect(shifted.length).toBeGreaterThan(0);
  });
});

describe('Scenario: busy-evening', () => {
  it('has a ringing spike on one DID, which then gets answered or ends', () => {
    const ringingOnSpike = (at: number) =>
      liveCallsAt(run('busy-evening'), at).filter(
        (call) => call.did === SPIKE_DID && statusOf(call.record) === 'ringing',
      );
    const before = new Set(ringingOnSpike(START_MS + SPIKE_OFFSET_MS - 1).map((c) => c.callId));
    const during = new Set(
      ringingOnSpike(START_MS + SPIKE_OFFSET_MS + 90_000).map((c) => c.callId),
    );
    const after = new Set(
      ringingOnSpike(START_MS + SPIKE_OFFSET_MS + 5 * MINUTE).map((c) => c.callId),
    );
    expect(during.size).toBeGreaterThanOrEqual(SPIKE_CALLS);
    expect(before.size).toBeLessThan(3);
    expect(after.size).toBeLessThan(3);
    for (const row of liveCallsAt(run('busy-evening'), START_MS + SPIKE_OFFSET_MS + 90_000)) {
      expect(canonicalPhone(String(row.record.did))).toBe(row.did);
    }
  });

  it('has calls ring, then get answered, then end', () => {
    const at = START_MS + 20 * MINUTE;
    const ringing = liveCallsAt(run('busy-evening'), at).filter(
      (call) => statusOf(call.record) === 'ringing',
    );
    const seen = (id: string, t: number) =>
      liveCallsAt(run('busy-evening'), t).filter((call) => call.callId === id);
    // Follow each ringing call forward in 5-second steps.
    const lifecycles = ringing.map((call) => {
      const states: string[] = [];
      for (let t = at; t < at + 20 * MINUTE; t += 5000) {
        const rows = seen(call.callId, t);
        const state = rows[0] ? statusOf(rows[0].record) : 'gone';
        if (states.at(-1) !== state) states.push(state);
      }
      return states.join('>');
    });
    expect(lifecycles).toContain('ringing>answered>gone');
    for (const lifecycle of lifecycles) {
      expect(['ringing>answered>gone', 'ringing>gone']).toContain(lifecycle);
    }
  });
});

describe('Scenario: stuck-payment', () => {
  const find = (at: number, createdMs: number) =>
    paymentsAt(run('stuck-payment'), at).filter((p) => p.createdMs === createdMs);

  it('has a payment created pending that stays pending for good', () => {
    const createdMs = START_MS + STUCK_AT_MS;
    expect(find(createdMs - 1, createdMs)).toEqual([]);
    for (const later of [createdMs, createdMs + 10 * MINUTE, createdMs + 5 * 3_600_000]) {
      const [stuck] = find(later, createdMs);
      expect(stuck?.record).toMatchObject({ payment_id: '' });
      expect(statusOf(stuck?.record ?? {})).toBe('pending');
    }
  });

  it('has a large payment that goes from pending to success with a payment_id', () => {
    const createdMs = START_MS + LARGE_AT_MS;
    const [pending] = find(createdMs + 1000, createdMs);
    const [settled] = find(createdMs + 2 * MINUTE, createdMs);
    expect(pending?.paidPaise).toBe(LARGE_PAISE);
    expect(statusOf(pending?.record ?? {})).toBe('pending');
    expect(pending?.record.payment_id).toBe('');
    expect(statusOf(settled?.record ?? {})).toBe('success');
    expect(String(settled?.record.payment_id)).toMatch(/^(pay_|MOJO)/);
    expect(settled?.record.id).toEqual(pending?.record.id);
  });

  it('has pending payments that later succeed', () => {
    const early = START_MS + 70_000;
    const late = START_MS + 5 * MINUTE;
    const pendingIds = paymentsAt(run('stuck-payment'), early)
      .filter((p) => statusOf(p.record) === 'pending')
      .map((p) => String(p.record.id));
    const stillPending = paymentsAt(run('stuck-payment'), late)
      .filter((p) => statusOf(p.record) === 'pending')
      .map((p) => String(p.record.id));
    expect(pendingIds.length).toBeGreaterThanOrEqual(3);
    expect(pendingIds.filter((id) => !stillPending.includes(id)).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the log: a payment is still listed hours later, with its creation time', () => {
    const createdMs = START_MS + LARGE_AT_MS;
    const [payment] = find(START_MS + 3 * 3_600_000, createdMs);
    expect(paymentTimeIst(payment?.record.created_at)).toBe(Math.floor(createdMs / 1000) * 1000);
  });
});

describe('Records in the wild', () => {
  const calls = generateLiveCalls(400, 9, START_MS, ZONE);
  const payments = generatePayments(400, 9, START_MS, ZONE);
  const variety = (values: unknown[]) => new Set(values.map((v) => typeof v)).size;

  it('sends numbers sometimes as strings', () => {
    expect(variety(calls.map((c) => c.id))).toBe(2);
    expect(variety(calls.map((c) => c.direction))).toBe(2);
    expect(variety(payments.map((p) => p.amount_paid))).toBe(2);
  });

  it('varies the letter case of states and the format of phone numbers', () => {
    expect(new Set(calls.map((c) => c.state)).size).toBeGreaterThanOrEqual(4);
    const dids = calls.map((c) => String(c.did));
    expect(dids.some((d) => d.startsWith('+91'))).toBe(true);
    expect(dids.some((d) => d.startsWith('0'))).toBe(true);
    expect(dids.some((d) => /^\d{10}$/.test(d))).toBe(true);
  });

  it('lists several agents in one destination for ring-all calls', () => {
    expect(calls.some((c) => String(c.destination).includes(','))).toBe(true);
  });

  it('writes both created_at shapes, in the zone', () => {
    expect(
      calls.every((c) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(String(c.created_at))),
    ).toBe(true);
    const last = payments.at(-1);
    expect(paymentTimeIst(last?.created_at)).toBeLessThanOrEqual(START_MS);
    expect(paymentTimeIst(last?.created_at)).toBeGreaterThan(START_MS - 5 * MINUTE);
  });

  it('names the gateway gateway or payment_gateway, with an empty payment_id while pending', () => {
    expect(payments.some((p) => 'gateway' in p)).toBe(true);
    expect(payments.some((p) => 'payment_gateway' in p)).toBe(true);
    for (const payment of payments) {
      expect(payment.payment_id === '').toBe(statusOf(payment) === 'pending');
    }
  });

  it('is deterministic for a seed', () => {
    expect(generatePayments(400, 9, START_MS, ZONE)).toEqual(payments);
    expect(generateLiveCalls(400, 9, START_MS, ZONE)).toEqual(calls);
    expect(generatePayments(400, 10, START_MS, ZONE)).not.toEqual(payments);
  });
});
