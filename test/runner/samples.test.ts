import { describe, expect, it } from 'vitest';
import { delaySeconds, judgeQueuedSample, laterSamples } from '../../shared/runner/samples';
import { config, MINUTE, T0 } from '../engine/fixtures';

const FOUR = (() => {
  const base = config([{ name: 'r', where: { state: 'Ringing' }, count: '> 1' }]);
  return {
    ...base,
    sources: { ...base.sources, live_calls: { everyMs: MINUTE, samples: 4, query: {} } },
  };
})();

describe('Function: laterSamples', () => {
  it('plans every sample after the first at its slot', () => {
    expect(laterSamples(FOUR, 'live_calls', T0)).toEqual([
      { source: 'live_calls', sample: 1, dueAtMs: T0 + 15_000 },
      { source: 'live_calls', sample: 2, dueAtMs: T0 + 30_000 },
      { source: 'live_calls', sample: 3, dueAtMs: T0 + 45_000 },
    ]);
  });

  it('plans nothing for payments, which take one sample a run', () => {
    expect(laterSamples(FOUR, 'payments', T0)).toEqual([]);
  });

  it('plans nothing for live calls once no rule reads them: that run asks the API nothing', () => {
    const unread = { ...FOUR, rules: config([{ name: 'p', source: 'payments', where: {} }]).rules };
    expect(laterSamples(unread, 'live_calls', T0)).toEqual([]);
  });
});

describe('Function: delaySeconds', () => {
  it('counts whole seconds from now, never below zero or past what SQS allows', () => {
    const sample = { source: 'live_calls' as const, sample: 1, dueAtMs: T0 + 15_000 };
    expect(delaySeconds(sample, T0 + 300)).toBe(15);
    expect(delaySeconds(sample, T0 + 20_000)).toBe(0);
    expect(delaySeconds({ ...sample, dueAtMs: T0 + 3_600_000 }, T0)).toBe(900);
  });
});

describe('Function: judgeQueuedSample', () => {
  const sample = { source: 'live_calls' as const, sample: 2, dueAtMs: T0 + 30_000 };

  it('takes a sample that arrives before the next one is due', () => {
    expect(judgeQueuedSample(FOUR, sample, T0 + 30_400)).toEqual({ take: true });
    expect(judgeQueuedSample(FOUR, sample, T0 + 44_999)).toEqual({ take: true });
  });

  it('drops a sample that arrives once the next one is due', () => {
    const verdict = judgeQueuedSample(FOUR, sample, T0 + 45_000);
    expect(verdict).toMatchObject({ take: false, reason: expect.stringContaining('15 s after') });
  });

  it('drops a sample the deployed rules no longer plan', () => {
    expect(judgeQueuedSample(FOUR, { ...sample, sample: 4 }, T0 + 30_000)).toMatchObject({
      take: false,
      reason: expect.stringContaining('not planned'),
    });
    // Queued before a deploy removed every live-calls rule.
    const unread = { ...FOUR, rules: config([{ name: 'p', source: 'payments', where: {} }]).rules };
    expect(judgeQueuedSample(unread, sample, T0 + 30_000)).toMatchObject({
      take: false,
      reason: expect.stringContaining('not planned'),
    });
  });
});
