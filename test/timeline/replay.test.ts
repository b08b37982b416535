import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../shared/timeline/parse';
import { replayTimeline } from '../../shared/timeline/replay';
import { config, failed, MINUTE, T0 } from '../engine/fixtures';

describe('Function: replayTimeline', () => {
  it('lets the lines of a source no rule reads change nothing, as it is never polled', () => {
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
});
