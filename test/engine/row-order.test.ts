import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/engine/evaluate';
import { preferredRow } from '../../shared/engine/preferred';
import type { Evaluation, SourceState } from '../../shared/engine/types';
import { RecordBatch } from '../../shared/records/batch';
import { readBatch } from '../../shared/records/parse';
import type { SourceName } from '../../shared/types/config';
import { config, MINUTE, T0, ZONE } from './fixtures';

/** Rules of every shape over both sources: per record, counted, grouped by text and by lists. */
const CONFIG = config([
  { name: 'ringing', where: { state: 'Ringing' }, keepFiringMs: MINUTE },
  { name: 'long', where: { call_time: '> 30s' } },
  { name: 'busy', where: { state: 'ringing' }, count: '>= 1', groupBy: ['agent_name'] },
  { name: 'by-destination', where: {}, count: '>= 2', groupBy: ['destination', 'did'] },
  { name: 'ringing-total', where: { state: 'Ringing' }, count: '>= 2' },
  { name: 'stuck', source: 'payments', where: { status: 'pending' }, keepFiringMs: MINUTE },
  { name: 'large', source: 'payments', where: { amount_paid: '>= 500' } },
  { name: 'pending-count', source: 'payments', where: { status: 'pending' }, count: '>= 1' },
  {
    name: 'by-gateway',
    source: 'payments',
    where: { status: '<> success' },
    count: '>= 1',
    groupBy: ['gateway'],
  },
]);

/** Few identities, so rows of one record repeat with different values. */
const liveCall = fc.record({
  call_id: fc.constantFrom('c1', 'c2', 'c3'),
  state: fc.constantFrom('Ringing', 'RINGING', 'Answered'),
  agent_name: fc.constantFrom('Asha', 'ASHA', 'Ravi'),
  call_time: fc.constantFrom('00:00:10', '00:01:00', 45),
  did: fc.constantFrom('8000000001', '+918000000002'),
  destination: fc.constantFrom('9812300011,9812300012', '+919812300012, 09812300011', '9812300013'),
  created_at: fc.constant('2026-11-21 09:59:00'),
});
const payment = fc.record({
  id: fc.constantFrom('p1', 'p2', 'p3'),
  status: fc.constantFrom('pending', 'success', 'Failed', ''),
  payment_id: fc.constantFrom('', 'pay_1', 'pay_2'),
  amount_paid: fc.constantFrom('100', 750, '1,000.00'),
  gateway: fc.constantFrom('Razorpay', 'RAZORPAY', 'Instamojo'),
  created_at: fc.constant('2026-11-21 09:50:00'),
});

/** Rows and the same rows in another order. */
function withShuffle<T>(rows: fc.Arbitrary<T[]>): fc.Arbitrary<[T[], T[]]> {
  return rows.chain((list) =>
    fc
      .shuffledSubarray(
        list.map((_, index) => index),
        { minLength: list.length, maxLength: list.length },
      )
      .map((order): [T[], T[]] => [list, order.map((index) => list[index] as T)]),
  );
}

/** Two polls of `source`, a minute apart: what each tells, and the state after both. */
function twoPolls(source: SourceName, first: readonly unknown[], second: readonly unknown[]) {
  return twoPollsOfAnswers(source, [first], [second]);
}

/**
 * `twoPolls` where each poll is several answers (the planner's windows and amounts), merged as
 * the runner merges them.
 */
function twoPollsOfAnswers(
  source: SourceName,
  first: readonly (readonly unknown[])[],
  second: readonly (readonly unknown[])[],
) {
  const results: Evaluation[] = [];
  let state: SourceState | undefined;
  [first, second].forEach((answers, minute) => {
    const batches = answers.map((rows) => readBatch(source, rows, ZONE));
    const records = RecordBatch.merge(
      batches.map((batch) => batch.records),
      preferredRow(source, ZONE),
    );
    const skipped = batches.reduce((total, batch) => total + batch.skipped, 0);
    const result = evaluate(
      CONFIG,
      source,
      { ok: true, records, skipped },
      T0 + minute * MINUTE,
      state,
    );
    state = result.state;
    results.push(result);
  });
  return { notifications: results.map((result) => result.notifications), state };
}

describe('Rule engine: the order of rows in an answer decides nothing', () => {
  it('tells and remembers the same whatever the order of live call rows, repeats included', () => {
    fc.assert(
      fc.property(
        withShuffle(fc.array(liveCall, { maxLength: 8 })),
        withShuffle(fc.array(liveCall, { maxLength: 8 })),
        ([first, firstShuffled], [second, secondShuffled]) => {
          expect(twoPolls('live_calls', firstShuffled, secondShuffled)).toEqual(
            twoPolls('live_calls', first, second),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells and remembers the same whatever the order of payment rows, repeats included', () => {
    fc.assert(
      fc.property(
        withShuffle(fc.array(payment, { maxLength: 8 })),
        withShuffle(fc.array(payment, { maxLength: 8 })),
        ([first, firstShuffled], [second, secondShuffled]) => {
          expect(twoPolls('payments', firstShuffled, secondShuffled)).toEqual(
            twoPolls('payments', first, second),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells and remembers the same whatever the order of the answers of one payments poll', () => {
    const answers = fc.array(fc.array(payment, { maxLength: 4 }), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(
        withShuffle(answers),
        withShuffle(answers),
        ([first, firstShuffled], [second, secondShuffled]) => {
          expect(twoPollsOfAnswers('payments', firstShuffled, secondShuffled)).toEqual(
            twoPollsOfAnswers('payments', first, second),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts a payment two answers list pending and success as settled, in either order', () => {
    const row = { id: 'p1', amount_paid: '100', gateway: 'Razorpay' };
    const pending = { ...row, status: 'pending', payment_id: '' };
    const success = { ...row, status: 'success', payment_id: 'pay_1' };
    for (const answers of [
      [[pending], [success]],
      [[success], [pending]],
    ]) {
      const { notifications } = twoPollsOfAnswers('payments', [[pending]], answers);
      expect(notifications[1]?.map((n) => `${n.status} ${n.key}`)).toEqual([
        'resolved pending-count',
        'resolved by-gateway{gateway=razorpay}',
      ]);
    }
  });

  it('counts a payment listed both pending and success as settled, in either order', () => {
    const row = { id: 'p1', amount_paid: '100', gateway: 'Razorpay' };
    const pending = { ...row, status: 'pending', payment_id: '' };
    const success = { ...row, status: 'success', payment_id: 'pay_1' };
    for (const rows of [
      [pending, success],
      [success, pending],
    ]) {
      const { notifications, state } = twoPolls('payments', [pending], rows);
      expect(notifications.map((list) => list.map((n) => `${n.status} ${n.key}`))).toEqual([
        ['firing stuck{id=p1}', 'firing pending-count', 'firing by-gateway{gateway=razorpay}'],
        ['resolved pending-count', 'resolved by-gateway{gateway=razorpay}'],
      ]);
      // keepFiring holds the settled payment a minute from now on.
      expect(state?.alerts['stuck{id=p1}']?.keepFiringSince).toBe(T0 + MINUTE);
    }
  });
});
