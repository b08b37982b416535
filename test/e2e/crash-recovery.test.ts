import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { StateStoreError } from '../../shared/ports/errors';
import type { StateStore } from '../../shared/ports/types';
import { ManualClock } from '../../simulator/clock';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { DID_A, DID_B, e2eScenario, MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;

/** Moves the simulator's clock and the handlers' `Date` together. */
function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

interface Body {
  id: string;
  at: string;
  rule: string;
  status: string;
  labels: Record<string, string>;
}
const byId = (bodies: Record<string, unknown>[]) =>
  (bodies as unknown as Body[]).toSorted((a, b) => (a.id < b.id ? -1 : 1));
const brief = (bodies: Body[]) =>
  bodies.map((b) => `${b.rule}:${b.status}:${Object.values(b.labels).join(',')}`).sort();
const owedKeys = async () =>
  (await harness.tableKeys('live_calls')).filter((sk) => sk.startsWith('owed#'));

/** A run the Lambda service kills once SNS took its notifications, before `markSent` answers. */
function killedAfterPublish() {
  let reached: () => void = () => {};
  const markSentReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const handler = createPollerHandler('live_calls', {
    logger: silentLogger(),
    wire: (wiring) => {
      const store: StateStore = {
        load: (source) => wiring.store.load(source),
        commit: (...args) => wiring.store.commit(...args),
        narrowOwed: (...args) => wiring.store.narrowOwed(...args),
        // Never answers: the run is frozen here for good, as a killed sandbox is.
        markSent: () => {
          reached();
          return new Promise(() => {});
        },
      };
      return { ...wiring, store };
    },
  });
  return { handler, markSentReached };
}

/**
 * A run killed while its commit writes owed items: the first owed item is written, the second
 * write and everything after it fail as the sandbox goes, so the state update never happens.
 */
function killedWhileWritingOwed() {
  return createPollerHandler('live_calls', {
    logger: silentLogger(),
    wire: (wiring) => {
      let firstOwed: Promise<unknown> | undefined;
      let dead = false;
      wiring.runtime.dynamodb.middlewareStack.add(
        (next) => async (args) => {
          const input = args.input as { Key?: { sk?: { S?: string } } };
          if (dead) throw new Error('the Lambda sandbox was killed');
          if (!input.Key?.sk?.S?.startsWith('owed#')) return next(args);
          if (firstOwed === undefined) {
            firstOwed = next(args);
            return firstOwed as ReturnType<typeof next>;
          }
          dead = true;
          await firstOwed;
          throw new Error('the Lambda sandbox was killed');
        },
        { step: 'initialize', name: 'killWhileWritingOwed' },
      );
      return wiring;
    },
  });
}

beforeAll(async () => {
  harness = await startRuntimeHarness({ prefix: 'crash', scenario: e2eScenario, clock });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: burst A rings from 0 to 3 min, burst B from 5 to 8 min.
describe('Deployed runtime on moto: runs killed between publish and commit', () => {
  const liveCalls = createPollerHandler('live_calls', { logger: silentLogger() });

  it('re-sends, with the same ids, what SNS took from a run killed before markSent', async () => {
    const killed = killedAfterPublish();
    at(30_000);
    // The invocation never settles: it is abandoned once its publish went through.
    void invoke(killed.handler);
    await killed.markSentReached;
    const first = byId(await harness.stack.drain('oncall'));
    expect(brief(first)).toEqual(['any-ringing:firing:', `too-many-ringing:firing:${DID_A}`]);
    expect(first.map((b) => b.at)).toEqual([iso(30_000), iso(30_000)]);
    expect(await harness.stack.drain('managers')).toHaveLength(1);
    expect(await owedKeys()).toHaveLength(2);

    // Within the owed grace period the items may still be the killed run's to mark: left alone.
    at(MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0, owedLeft: 2 });
    expect(await harness.stack.drain('oncall')).toEqual([]);

    at(2 * MINUTE + 40_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2, owedLeft: 0 });
    const again = byId(await harness.stack.drain('oncall'));
    // At least once: the very same notifications, ids included, so a consumer can drop repeats.
    expect(again).toEqual(first);
    expect(new Set([...first, ...again].map((b) => b.id)).size).toBe(2);
    expect(brief(byId(await harness.stack.drain('managers')))).toEqual([
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(await owedKeys()).toEqual([]);

    at(2 * MINUTE + 50_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0, owedLeft: 0 });
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });

  it('delivers nothing of an evaluation whose run was killed while writing its owed items', async () => {
    const keysBefore = await harness.tableKeys('live_calls');
    expect(keysBefore).toEqual(['state']);

    // Burst A is over: the evaluation resolves both alerts, but its commit never completes.
    at(4 * MINUTE);
    await expect(invoke(killedWhileWritingOwed())).rejects.toBeInstanceOf(StateStoreError);
    expect(await harness.stack.drain('oncall')).toEqual([]);
    const orphans = await owedKeys();
    expect(orphans).toHaveLength(1);
    expect(orphans[0]).toContain(`|resolved|${iso(4 * MINUTE)}`);

    // The next run evaluates afresh: its own resolved notifications, none of the killed run's.
    at(4 * MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2, owedLeft: 0 });
    const resolved = byId(await harness.stack.drain('oncall'));
    expect(brief(resolved)).toEqual([
      'any-ringing:resolved:',
      `too-many-ringing:resolved:${DID_A}`,
    ]);
    expect(resolved.map((b) => b.at)).toEqual([iso(4 * MINUTE + 30_000), iso(4 * MINUTE + 30_000)]);

    // Long past the grace period the orphan is still not owed: it is deleted, never sent.
    at(7 * MINUTE);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2, owedLeft: 0 });
    const later = byId(await harness.stack.drain('oncall'));
    expect(brief(later)).toEqual(['any-ringing:firing:', `too-many-ringing:firing:${DID_B}`]);
    expect(later.map((b) => b.at)).toEqual([iso(7 * MINUTE), iso(7 * MINUTE)]);
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
  });
});
