import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/engine/evaluate';
import { readBatch } from '../../shared/records/parse';
import type { PollResult } from '../../shared/records/types';
import type { SourceName } from '../../shared/types/config';
import { config, MINUTE, T0, ZONE } from './fixtures';

/** A poll of raw API rows, read as the deployed poller reads them. */
function rawPoll(source: SourceName, rows: readonly Record<string, unknown>[]): PollResult {
  const { records, skipped } = readBatch(source, rows, ZONE);
  return { ok: true, records, skipped };
}

/** Writings the API is known to use for one value of a field (api-notes: drift). */
interface Writings {
  readonly source: SourceName;
  readonly field: string;
  readonly writings: readonly unknown[];
}

const DESTINATIONS = ['+919812300011', '919812300012', '9812300011', '09812300012'];

/** Every field kind a group can be keyed by, each with writings of one value. */
const FIELDS: readonly Writings[] = [
  {
    source: 'live_calls',
    field: 'destination',
    writings: [
      '+919812300011,+919812300012',
      '919812300012, 9812300011',
      '09812300012;+919812300011;9812300012',
      ['9812300012', 919812300011],
    ],
  },
  {
    source: 'live_calls',
    field: 'did',
    writings: ['+918000000001', '918000000001', '08000000001', 8000000001, ' +91 80000 00001 '],
  },
  { source: 'live_calls', field: 'agent_name', writings: ['Asha', 'ASHA', ' asha '] },
  // A field no document names is read as text.
  { source: 'live_calls', field: 'queue_name', writings: ['Sales', 'SALES', ' sales'] },
  { source: 'live_calls', field: 'agent_number', writings: ['+919812300011', 9812300011] },
  { source: 'live_calls', field: 'direction', writings: [1, '1', 'inbound', 'Inbound'] },
  { source: 'live_calls', field: 'call_time', writings: ['00:01:00', 60, '60'] },
  { source: 'live_calls', field: 'call_id', writings: ['1763700259.430', 1763700259.43] },
  { source: 'payments', field: 'amount_paid', writings: ['1500.00', 1500, '1500', '1,500.0'] },
  { source: 'payments', field: 'status', writings: ['Pending', 'PENDING', 'pending '] },
  { source: 'live_calls', field: 'user_id', writings: [4512, '4512'] },
  { source: 'payments', field: 'gateway', writings: ['Razorpay', 'RAZORPAY', ' razorpay'] },
];

function row(source: SourceName, field: string, value: unknown): Record<string, unknown> {
  const base: Record<string, unknown> =
    source === 'live_calls'
      ? { call_id: 'c1', state: 'Ringing', created_at: '2026-11-21 09:59:00' }
      : { id: 'p1', status: 'pending', amount_paid: '10', created_at: '2026-11-21 09:59:00' };
  return { ...base, [field]: value };
}

/** The notifications of two polls of one record, its field written `first` then `second`. */
function twoPolls(fields: Writings, first: unknown, second: unknown): string[] {
  const { source, field } = fields;
  const cfg = config([{ name: 'grouped', source, where: {}, count: '>= 1', groupBy: [field] }]);
  const one = evaluate(cfg, source, rawPoll(source, [row(source, field, first)]), T0);
  const two = evaluate(
    cfg,
    source,
    rawPoll(source, [row(source, field, second)]),
    T0 + MINUTE,
    one.state,
  );
  return [...one.notifications, ...two.notifications].map((n) => `${n.status} ${n.key}`);
}

describe('Rule engine: one group identity whatever the writing of its label', () => {
  it('keeps a call grouped by destination in one group when the list comes back reordered', () => {
    const destination = FIELDS[0] as Writings;
    expect(
      twoPolls(destination, '+919812300011,+919812300012', '919812300012, 9812300011'),
    ).toEqual(['firing grouped{destination=+919812300011,+919812300012}']);
  });

  it('keeps one group, never resolving and refiring, for any two writings of a label value', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...FIELDS)
          .chain((fields) =>
            fc.tuple(
              fc.constant(fields),
              fc.constantFrom(...fields.writings),
              fc.constantFrom(...fields.writings),
            ),
          ),
        ([fields, first, second]) => {
          const seen = twoPolls(fields, first, second);
          expect(seen).toHaveLength(1);
          expect(seen[0]).toMatch(/^firing /);
        },
      ),
    );
  });

  it('keys a destination by its phones in any order, repeats and separators', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(DESTINATIONS, { minLength: 1 }),
        fc.shuffledSubarray(DESTINATIONS, { minLength: 1 }),
        fc.constantFrom(',', ', ', ';', ' , '),
        (first, second, separator) => {
          const destination = FIELDS[0] as Writings;
          const seen = twoPolls(
            destination,
            first.join(','),
            [...second, ...second].join(separator),
          );
          // The four writings name two phones: the same set of phones is one group.
          const phones = (list: readonly string[]) =>
            [...new Set(list.map((phone) => phone.slice(-10)))].sort().join();
          const same = phones(first) === phones(second);
          expect(seen.filter((line) => line.startsWith('firing')).length).toBe(same ? 1 : 2);
        },
      ),
    );
  });
});
