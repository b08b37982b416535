import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../shared/timeline/parse';
import { replayTimeline } from '../../shared/timeline/replay';
import { config, failed, MINUTE, ok, payment, T0 } from '../engine/fixtures';

describe('Function: replayTimeline', () => {
  it('takes the lines of a source no rule reads as polls that ask nothing: no source_unavailable', () => {
    const calls = config([{ name: 'calls', where: {}, count: '> 100' }], {
      health: { after: 1, notify: ['oncall'] },
    });
    const down = (minute: number, source: 'live_calls' | 'payments'): TimelineEntry => ({
      atMs: T0 + minute * MINUTE,
      source,
      poll: failed(),
    });
    expect(replayTimeline(calls, [down(0, 'payments'), down(1, 'payments')])).toEqual([]);
    expect(replayTimeline(calls, [down(0, 'live_calls')]).map((n) => n.key)).toEqual([
      'source_unavailable{source=live_calls}',
    ]);
  });

  it("ends a removed rule's firing alert at its source's next line, when no rule reads that source any more", () => {
    const both = config([
      { name: 'calls', where: {}, count: '> 100' },
      { name: 'big', source: 'payments', where: { amount_paid: '> 1000' } },
    ]);
    const callsOnly = config([{ name: 'calls', where: {}, count: '> 100' }]);
    const line = (minute: number): TimelineEntry => ({
      atMs: T0 + minute * MINUTE,
      source: 'payments',
      poll: ok(payment('p1', { amount_paid: '5000' }, T0)),
    });
    const told = replayTimeline(both, [line(0), line(5)], {}, [
      { atMs: T0 + 2 * MINUTE, config: callsOnly },
    ]);
    expect(told.map((n) => [n.key, n.status])).toEqual([
      ['big{id=p1}', 'firing'],
      ['big{id=p1}', 'resolved'],
    ]);
    expect(told[1]?.subject).toContain('rule removed from the rules file');
  });
});
