import { describe, expect, it } from 'vitest';
import { pollOnSchedule } from '../../cli/lib/scheduler';
import { StateStoreError } from '../../shared/ports/errors';
import { MemoryPublisher, MemoryStateStore } from '../../shared/ports/memory';
import type { StateStore } from '../../shared/ports/types';
import { RecordBatch } from '../../shared/records/batch';
import type { PollClient } from '../../shared/runner/types';
import { config, MINUTE } from '../engine/fixtures';

const BOTH = config([
  { name: 'calls', where: {}, count: '> 100' },
  { name: 'payments', source: 'payments', where: { status: 'pending' } },
]);

describe('Function: pollOnSchedule', () => {
  it('stops every source and throws when one source fails, instead of idling on', async () => {
    const signals: AbortSignal[] = [];
    const client: PollClient = {
      async request(_request, options) {
        if (options.signal) signals.push(options.signal);
        return { records: RecordBatch.EMPTY, skipped: 0, skipReasons: [] };
      },
    };
    const memory = new MemoryStateStore();
    // The payments state is unreadable from its second run on: a state file gone bad.
    let paymentLoads = 0;
    const store: StateStore = {
      load: async (source) => {
        if (source === 'payments' && ++paymentLoads > 1) {
          throw new StateStoreError('the state file is not JSON');
        }
        return memory.load(source);
      },
      commit: (...args) => memory.commit(...args),
      markSent: (...args) => memory.markSent(...args),
      narrowOwed: (...args) => memory.narrowOwed(...args),
    };
    const runs: string[] = [];
    const startMs = Date.now();
    // A simulated minute every millisecond: payments fail at its second run, 5 minutes in.
    const speed = MINUTE;
    const now = () => startMs + (Date.now() - startMs) * speed;
    const polling = pollOnSchedule({
      config: BOTH,
      client,
      store,
      publisher: new MemoryPublisher(),
      now,
      speed,
      signal: new AbortController().signal,
      once: false,
      onRun: (summary) => runs.push(summary.source),
    });
    await expect(polling).rejects.toThrow('the state file is not JSON');
    const runsAtFailure = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Live calls would have run about fifty more times in 50 ms had they gone on.
    expect(runs.length).toBeLessThanOrEqual(runsAtFailure + 1);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });
});
