import { describe, expect, it } from 'vitest';
import { MemoryNotifierStore, MemoryStateStore } from '../../shared/ports/memory';
import { describeStateStoreContract } from './contract';
import { sampleState } from './fixtures';
import { describeNotifierStoreContract } from './notifier-contract';

describeStateStoreContract('memory', async (now) => new MemoryStateStore({ now }));

describe('Class: MemoryStateStore', () => {
  it('keeps its stored state when a caller mutates what it loaded', async () => {
    const store = new MemoryStateStore();
    await store.commit('live_calls', 0, sampleState(), []);
    const loaded = await store.load('live_calls');
    (loaded.state as { consecutiveFailures: number }).consecutiveFailures = 99;
    expect((await store.load('live_calls')).state?.consecutiveFailures).toBe(0);
  });
});

describeNotifierStoreContract('memory', async () => new MemoryNotifierStore());
