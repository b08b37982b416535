import { describe, expect, it } from 'vitest';
import { StateConflictError } from '../../shared/ports/errors';
import type { StateStore } from '../../shared/ports/types';
import { sampleNotification, sampleState } from './fixtures';

/**
 * The behaviour every `StateStore` adapter promises. Run against memory and file here and
 * against DynamoDB on moto in `test/e2e`.
 */
/** The clock the contract gives each store: what it stamps a write with. */
const WRITTEN_AT = Date.parse('2026-11-21T04:30:00.000Z');

export function describeStateStoreContract(
  name: string,
  makeStore: (now: () => number) => Promise<StateStore>,
) {
  describe(`Contract: StateStore (${name})`, () => {
    it('loads revision 0 with nothing owed for a source never written', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      expect(await store.load('payments')).toEqual({ state: undefined, revision: 0, owed: [] });
    });

    it('returns what was committed with the next revision', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const first = await store.commit('live_calls', 0, sampleState(), []);
      const second = await store.commit('live_calls', first, sampleState('live_calls', 2), []);
      expect([first, second]).toEqual([1, 2]);
      expect(await store.load('live_calls')).toEqual({
        state: sampleState('live_calls', 2),
        revision: 2,
        writtenAtMs: WRITTEN_AT,
        owed: [],
      });
    });

    it('stamps each write with its clock, so a reader knows how old the state is', async () => {
      let nowMs = WRITTEN_AT;
      const store = await makeStore(() => nowMs);
      await store.commit('payments', 0, sampleState('payments'), []);
      nowMs += 60_000;
      await store.commit('payments', 1, sampleState('payments'), [sampleNotification()]);
      nowMs += 60_000;
      await store.markSent('payments', [sampleNotification().id]);
      expect((await store.load('payments')).writtenAtMs).toBe(WRITTEN_AT + 60_000);
    });

    it('rejects a commit whose expected revision is stale', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      await store.commit('live_calls', 0, sampleState(), []);
      await expect(store.commit('live_calls', 0, sampleState(), [])).rejects.toBeInstanceOf(
        StateConflictError,
      );
      const later = sampleNotification({ at: '2026-11-21T05:00:00.000Z' });
      await store.commit('live_calls', 1, sampleState(), []);
      await expect(store.commit('live_calls', 1, sampleState(), [later])).rejects.toBeInstanceOf(
        StateConflictError,
      );
      expect((await store.load('live_calls')).owed).toEqual([]);
    });

    it('lets exactly one of two concurrent commits on the same revision win', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const results = await Promise.allSettled([
        store.commit('live_calls', 0, sampleState('live_calls', 1), [sampleNotification()]),
        store.commit('live_calls', 0, sampleState('live_calls', 2), [sampleNotification()]),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected');
      expect(rejected?.status === 'rejected' && rejected.reason).toBeInstanceOf(StateConflictError);
      expect((await store.load('live_calls')).owed).toHaveLength(1);
    });

    it('adds owed notifications to those still owed and removes them once marked sent', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const a = sampleNotification({ at: '2026-11-21T04:31:00.000Z' });
      const b = sampleNotification({ at: '2026-11-21T04:32:00.000Z', status: 'resolved' });
      await store.commit('live_calls', 0, sampleState(), [a]);
      await store.commit('live_calls', 1, sampleState(), [b]);
      const owed = (await store.load('live_calls')).owed;
      expect([...owed].sort((x, y) => x.id.localeCompare(y.id))).toEqual([a, b]);
      await store.markSent('live_calls', [a.id]);
      expect((await store.load('live_calls')).owed).toEqual([b]);
    });

    it('treats marking an unknown or already sent id as done', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const a = sampleNotification();
      await store.markSent('live_calls', [a.id]);
      await store.commit('live_calls', 0, sampleState(), [a]);
      await store.markSent('live_calls', [a.id, 'no-such-id']);
      await store.markSent('live_calls', [a.id]);
      expect(await store.load('live_calls')).toMatchObject({ revision: 1, owed: [] });
    });

    it('narrows an owed notification to the channels still owed, keeping it owed', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const a = sampleNotification({ channels: ['oncall', 'finance', 'managers'] });
      await store.commit('live_calls', 0, sampleState(), [a]);
      await store.narrowOwed('live_calls', a.id, ['managers', 'finance', 'nowhere']);
      // Survives a later commit on the next revision, as a commit only adds to what is owed.
      await store.commit('live_calls', 1, sampleState(), []);
      expect((await store.load('live_calls')).owed).toEqual([
        { ...a, channels: ['finance', 'managers'] },
      ]);
      await store.markSent('live_calls', [a.id]);
      expect((await store.load('live_calls')).owed).toEqual([]);
    });

    it('treats narrowing a notification that is not owed as done', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      const a = sampleNotification({ channels: ['oncall', 'finance'] });
      await store.narrowOwed('live_calls', a.id, ['finance']);
      await store.commit('live_calls', 0, sampleState(), [a]);
      await store.markSent('live_calls', [a.id]);
      await store.narrowOwed('live_calls', a.id, ['finance']);
      expect(await store.load('live_calls')).toMatchObject({ revision: 1, owed: [] });
      expect(await store.load('payments')).toEqual({ state: undefined, revision: 0, owed: [] });
    });

    it('keeps sources apart', async () => {
      const store = await makeStore(() => WRITTEN_AT);
      await store.commit('live_calls', 0, sampleState(), [sampleNotification()]);
      expect(await store.load('payments')).toEqual({ state: undefined, revision: 0, owed: [] });
    });
  });
}
