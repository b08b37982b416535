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

  it('ends a source_unavailable, saying why, once no rule reads its source any more', () => {
    const health = { health: { after: 1, notify: ['oncall'] } };
    const both = config(
      [
        { name: 'calls', where: {}, count: '> 100' },
        { name: 'big', source: 'payments', where: { amount_paid: '> 1000' } },
      ],
      health,
    );
    const callsOnly = config([{ name: 'calls', where: {}, count: '> 100' }], health);
    const down = (minute: number): TimelineEntry => ({
      atMs: T0 + minute * MINUTE,
      source: 'payments',
      poll: failed(),
    });
    const told = replayTimeline(both, [down(0), down(5), down(10)], {}, [
      { atMs: T0 + 2 * MINUTE, config: callsOnly },
    ]);
    expect(told.map((n) => [n.key, n.status, n.channels])).toEqual([
      ['source_unavailable{source=payments}', 'firing', ['oncall']],
      ['source_unavailable{source=payments}', 'resolved', ['oncall']],
    ]);
    expect(told[1]?.sms).toBe(
      'RESOLVED source_unavailable: payments: no rule reads the source any more; critical',
    );
    expect(told[1]?.text).toContain('No rule of the rules file reads payments any more');
    expect(told[1]?.text).toContain('Resolved:');
  });
});
