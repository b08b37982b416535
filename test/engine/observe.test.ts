import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRule, type Observation } from '../../shared/engine/aggregate';
import { observeAll } from '../../shared/engine/observe';
import { parseRecords } from '../../shared/records/parse';
import { config, T0, ZONE } from './fixtures';

/** Rules of every shape the scan generates: per record, counted, grouped, never matching. */
const CONFIG = config([
  { name: 'ringing', where: { state: 'Ringing', call_time: '> 20s' } },
  { name: 'any-state', where: { state: ['ringing', 'queued'] } },
  { name: 'not-answered', where: { state: '<> answered' }, count: '>= 2', groupBy: ['did'] },
  {
    name: 'by-agent',
    where: { direction: 'inbound' },
    count: '> 0',
    groupBy: ['agent_name', 'did'],
  },
  { name: 'none', where: {}, count: '< 3' },
  { name: 'phones', where: { destination: '8000000011', age: '< 1h' } },
  { name: 'unreadable', where: { call_time: '> soon' } },
]);

const value = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -1, max: 90 }),
  fc.constant(null),
);
const liveCall = fc.record(
  {
    call_id: fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', 'e'), value),
    state: fc.oneof(fc.constantFrom('Ringing', 'RINGING ', 'Answered', 'queued', ''), value),
    did: fc.oneof(fc.constantFrom('8000000001', '+918000000002', 918000000001), value),
    agent_name: fc.oneof(fc.constantFrom('Asha', 'ASHA', 'Ravi'), value),
    direction: fc.oneof(fc.constantFrom(1, 2, 'inbound', 'Outbound'), value),
    call_time: fc.oneof(fc.constantFrom('00:00:10', '00:01:00', 45), value),
    destination: fc.oneof(fc.constantFrom('8000000011,8000000012', '+918000000011'), value),
    created_at: fc.oneof(fc.constantFrom('2026-11-21 09:59:00', '2026-11-21 08:00:00'), value),
  },
  { requiredKeys: [] },
);

function brief(observations: Map<string, Observation>[]) {
  return observations.map((byKey) =>
    [...byKey.values()]
      .map((o) => ({ key: o.key, holds: o.holds, value: o.value, labels: o.labels }))
      .sort((a, b) => (a.key < b.key ? -1 : 1)),
  );
}

describe('Function: observeAll', () => {
  it('observes the same with the generated scan as with each rule interpreted', () => {
    const tracked = fc.subarray(['a', 'b', 'c', 'x']);
    fc.assert(
      fc.property(fc.array(liveCall, { maxLength: 12 }), tracked, (rows, ids) => {
        const { records } = parseRecords('live_calls', rows, ZONE);
        const rules = CONFIG.rules.map((rule) => ({
          compiled: compileRule(rule, ZONE),
          ...(rule.count ? {} : { tracked: ids.map((id) => ({ labels: { call_id: id } })) }),
        }));
        const generated = observeAll(rules, records, T0, ZONE);
        const interpreted = observeAll(rules, records, T0, ZONE, { generated: false });
        expect(brief(generated)).toEqual(brief(interpreted));
      }),
      { numRuns: 1500 },
    );
  });
});
