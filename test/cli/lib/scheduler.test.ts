import { describe, expect, it, vi } from 'vitest';
import { pollOnSchedule } from '../../../cli/lib/scheduler';
import { StateStoreError } from '../../../shared/ports/errors';
import { MemoryPublisher, MemoryStateStore } from '../../../shared/ports/memory';
import type { StateStore } from '../../../shared/ports/types';
import { RecordBatch } from '../../../shared/records/batch';
import type { PollClient } from '../../../shared/runner/types';
import { config, MINUTE, T0 } from '../../engine/fixtures';

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
    // Simulated time: the schedule's waits are timers the test moves, so a busy machine that
    // takes long over a run changes nothing (a real clock made runs miss their deadlines).
    vi.useFakeTimers({ now: T0 });
    try {
      const polling = pollOnSchedule({
        config: BOTH,
        client,
        store,
        publisher: new MemoryPublisher(),
        now: () => Date.now(),
        signal: new AbortController().signal,
        once: false,
        onRun: (summary) => runs.push(summary.source),
      });
      const failure = polling.then(
        () => undefined,
        (error: unknown) => error,
      );
      // Payments fail at their second run, 5 minutes in.
      await vi.advanceTimersByTimeAsync(5 * MINUTE);
      expect(await failure).toEqual(new StateStoreError('the state file is not JSON'));
      expect(runs.filter((source) => source === 'payments')).toHaveLength(1);
      const runsAtFailure = runs.length;
      // Live calls would have run fifty more times in 50 minutes had they gone on.
      await vi.advanceTimersByTimeAsync(50 * MINUTE);
      expect(runs.length).toBeLessThanOrEqual(runsAtFailure + 1);
      expect(signals.length).toBeGreaterThan(0);
      expect(signals.every((signal) => signal.aborted)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
