import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/engine/evaluate';
import type { SourceState } from '../../shared/engine/types';
import { readBatch } from '../../shared/records/parse';
import type { PollResult } from '../../shared/records/types';
import type { TimelineEntry } from '../../shared/timeline/parse';
import { replayTimeline } from '../../shared/timeline/parse';
import type { SourceName } from '../../shared/types/config';
import { config, MINUTE, T0, ZONE } from './fixtures';

const CONFIG = config(
  [
    { name: 'ringing-long', where: { state: 'Ringing' }, forMs: 2 * MINUTE, repeatMs: 5 * MINUTE },
    { name: 'flappy', where: { call_time: '> 30s' }, keepFiringMs: MINUTE, resolved: false },
    {
      name: 'busy',
      where: { state: ['ringing', 'Queued'] },
      count: '>= 2',
      groupBy: ['did'],
      forMs: MINUTE,
    },
    { name: 'quiet', where: { direction: 'inbound' }, count: '< 1', keepFiringMs: 2 * MINUTE },
    { name: 'large', source: 'payments', where: { amount_paid: '>= 100000.1' } },
    {
      name: 'stuck',
      source: 'payments',
      where: { status: 'pending', age: '> 30m' },
      repeatMs: 10 * MINUTE,
    },
  ],
  { health: { after: 2, notify: ['oncall'] } },
);

const REPEAT: Readonly<Record<string, number | undefined>> = Object.fromEntries(
  CONFIG.rules.map((rule) => [rule.name, rule.repeatMs]),
);

/** Small pools, so identities and groups collide across polls. */
const junk = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
);
const liveCall = fc.record(
  {
    call_id: fc.oneof(fc.constantFrom('a', 'b', 'c', 'd'), junk),
    state: fc.oneof(fc.constantFrom('Ringing', 'RINGING', 'Answered', 'queued'), junk),
    did: fc.oneof(fc.constantFrom('8000000001', '+918000000002', 918000000001), junk),
    direction: fc.oneof(fc.constantFrom(1, 2, '1', 'Outbound'), junk),
    call_time: fc.oneof(fc.constantFrom('00:00:10', '00:01:00', 45), junk),
    destination: fc.oneof(fc.constant('8000000011,8000000012'), junk),
    created_at: fc.oneof(fc.constant('2026-11-21 09:59:00'), junk),
  },
  { requiredKeys: [] },
);
const paymentRecord = fc.record(
  {
    id: fc.oneof(fc.constantFrom(1, 2, '3'), junk),
    amount_paid: fc.oneof(fc.constantFrom('100000.10', 100000.1, '99.5', '1,00,000.20'), junk),
    status: fc.oneof(fc.constantFrom('pending', 'Success', 'PENDING'), junk),
    created_at: fc.oneof(fc.constantFrom('21-Nov-2026 09:00:00', '2026-11-20 09:00:00'), junk),
    gateway: fc.oneof(fc.constant('Razorpay'), junk),
  },
  { requiredKeys: [] },
);

const step = fc.record({
  // Evaluations are at distinct instants (ids embed the time); equal times are tested elsewhere.
  gapMs: fc.integer({ min: 1000, max: 20 * MINUTE }),
  source: fc.constantFrom<SourceName>('live_calls', 'payments'),
  failed: fc.boolean(),
  calls: fc.array(fc.oneof(liveCall, junk), { maxLength: 6 }),
  payments: fc.array(fc.oneof(paymentRecord, junk), { maxLength: 4 }),
});

type StepValue = typeof step extends fc.Arbitrary<infer T> ? T : never;

function timeline(steps: readonly StepValue[]): TimelineEntry[] {
  let atMs = T0;
  return steps.map((s): TimelineEntry => {
    atMs += s.gapMs;
    const poll: PollResult = s.failed
      ? { ok: false, error: { kind: 'http', status: 500, message: 'HTTP 500' } }
      : (() => {
          const batch = readBatch(s.source, s.source === 'live_calls' ? s.calls : s.payments, ZONE);
          return { ok: true, records: batch.records, skipped: batch.skipped };
        })();
    return { atMs, source: s.source, poll };
  });
}
const timelines = fc.array(step, { maxLength: 30 }).map((steps) => timeline(steps));

/**
 * Checks the lifecycle's promises over a replay, evaluation by evaluation: an instance that
 * left the state ended (a silent end with `resolved: false` counts as a resolve).
 */
function lifecycleViolations(entries: readonly TimelineEntry[]): string[] {
  const problems: string[] = [];
  const since: Record<SourceName, Map<string, number>> = {
    live_calls: new Map(),
    payments: new Map(),
  };
  const states: Partial<Record<SourceName, SourceState>> = {};
  for (const entry of entries) {
    const firingSince = since[entry.source];
    const result = evaluate(CONFIG, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    for (const n of result.notifications) {
      const last = firingSince.get(n.key);
      if (n.status === 'resolved') {
        if (last === undefined) problems.push(`${n.id}: resolved without a firing`);
        firingSince.delete(n.key);
        continue;
      }
      const repeat = REPEAT[n.rule];
      if (last !== undefined && (repeat === undefined || entry.atMs - last < repeat)) {
        problems.push(`${n.id}: fired again ${entry.atMs - last}ms after the last firing`);
      }
      firingSince.set(n.key, entry.atMs);
    }
    for (const key of firingSince.keys()) {
      if (result.state.alerts[key] === undefined) firingSince.delete(key);
    }
  }
  return problems;
}

describe('Function: evaluate (properties)', () => {
  it('never throws for arbitrary records and timelines', () => {
    fc.assert(
      fc.property(timelines, (entries) => {
        replayTimeline(CONFIG, entries);
      }),
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(timelines, (entries) => {
        expect(replayTimeline(CONFIG, entries)).toEqual(replayTimeline(CONFIG, entries));
      }),
    );
  });

  it('never fires one key twice without a resolve or a repeat interval in between, and resolves only what fired', () => {
    fc.assert(
      fc.property(timelines, (entries) => {
        expect(lifecycleViolations(entries)).toEqual([]);
      }),
    );
  });

  it('gives every notification a unique id', () => {
    fc.assert(
      fc.property(timelines, (entries) => {
        const ids = replayTimeline(CONFIG, entries).map((n) => n.id);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });
});
