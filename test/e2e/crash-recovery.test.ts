import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { Message } from '../../shared/notifier/types';
import { StateStoreError } from '../../shared/ports/errors';
import type { NotifierStore } from '../../shared/ports/notifier';
import { ManualClock } from '../../simulator/clock';
import { committedItems } from './fault-injection';
import {
  invoke,
  lambdaContext,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
} from './lambda';
import { DID_A, DID_B, e2eScenario, MINUTE, rulesToldAtOnce } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;

/** Moves the simulator's clock and the handlers' `Date` together. */
function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

const byId = (bodies: Record<string, unknown>[]) =>
  (bodies as unknown as Message[]).toSorted((a, b) => (a.id < b.id ? -1 : 1));
/** Each alert line of `messages`, as `rule:status:labels`, sorted. */
const brief = (messages: readonly Message[]) =>
  messages
    .flatMap((message) => message.alerts)
    .map((alert) => `${alert.rule}:${alert.status}:${Object.values(alert.labels).join(',')}`)
    .sort();
const owedKeys = async () =>
  (await harness.tableKeys('live_calls')).filter((sk) => sk.startsWith('owed#'));
/** The notifier's committed owed messages (a sent one leaves a tombstone, not owed). */
const owedMessages = async () => {
  const client = new DynamoDBClient({});
  try {
    return await committedItems(client, harness.stack.tableName, 'notifier');
  } finally {
    client.destroy();
  }
};

type Round = (event: { id: string }, context: Context) => Promise<NotifierSummary>;
const schedule = (handler: unknown) =>
  (handler as Round)({ id: `schedule-${Date.now()}` }, lambdaContext());

/**
 * A notifier the Lambda service kills once SNS took its messages, before it marks them sent:
 * its invocation never settles.
 */
function killedAfterPublish() {
  let reached: () => void = () => {};
  const markReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const handler = createNotifierHandler({
    logger: silentLogger(),
    wire: (wiring) => {
      const store: NotifierStore = {
        loadNotifier: () => wiring.store.loadNotifier(),
        commitNotifier: (...args) => wiring.store.commitNotifier(...args),
        // Never answers: the invocation is frozen here for good, as a killed sandbox is.
        markMessagesSent: () => {
          reached();
          return new Promise(() => {});
        },
      };
      return { ...wiring, store };
    },
  });
  return { handler, markReached };
}

/**
 * A poller run killed while its commit writes owed items: the first owed item is written, the
 * second write and everything after it fail as the sandbox goes, so the state update never
 * happens.
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
  harness = await startRuntimeHarness({
    prefix: 'crash',
    scenario: e2eScenario,
    clock,
    rules: (baseUrl, tokenParameter) => rulesToldAtOnce(baseUrl, tokenParameter),
  });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: burst A rings from 0 to 3 min, burst B from 5 to 8 min.
describe('Deployed runtime on moto: runs killed between publish and commit', () => {
  // Made once the environment is set: Powertools reads it (metrics off) at construction.
  let liveCalls: ReturnType<typeof createPollerHandler>;
  let notifier: ReturnType<typeof createNotifierHandler>;
  beforeAll(() => {
    liveCalls = createPollerHandler('live_calls', { logger: silentLogger() });
    notifier = createNotifierHandler({ logger: silentLogger() });
  });

  it('re-sends, with the same ids, what SNS took from a notifier killed before it marked them sent', async () => {
    at(30_000);
    await invoke(liveCalls);
    const killed = killedAfterPublish();
    // The invocation never settles: it is abandoned once its publishes went through.
    void harness.streamToNotifier(killed.handler);
    await killed.markReached;
    const first = byId(await harness.stack.drain('oncall'));
    expect(brief(first)).toEqual(['any-ringing:firing:', `too-many-ringing:firing:${DID_A}`]);
    expect(first.flatMap((m) => m.alerts.map((a) => a.at))).toEqual([iso(30_000), iso(30_000)]);
    expect(await harness.stack.drain('managers')).toHaveLength(1);
    // The events were the notifier's once it committed: marked sent before it published.
    expect(await owedKeys()).toEqual([]);
    // Four: managers' copy of the warning is published too, and its filter policy drops it.
    expect(await owedMessages()).toHaveLength(4);

    // Within the owed grace period the messages may still be the killed round's: left alone.
    at(MINUTE + 30_000);
    expect((await schedule(notifier)).published).toEqual([]);
    expect(await harness.stack.drain('oncall')).toEqual([]);

    at(2 * MINUTE + 40_000);
    expect((await schedule(notifier)).published).toHaveLength(4);
    const again = byId(await harness.stack.drain('oncall'));
    // At least once: the very same messages, ids included, so a consumer can drop repeats.
    expect(again).toEqual(first);
    expect(brief(byId(await harness.stack.drain('managers')))).toEqual([
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(await owedMessages()).toEqual([]);

    at(2 * MINUTE + 50_000);
    expect((await schedule(notifier)).published).toEqual([]);
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });

  it('tells nothing of an evaluation whose run was killed while writing its owed items', async () => {
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);

    // Burst A is over: the evaluation resolves both alerts, but its commit never completes.
    at(4 * MINUTE);
    await expect(invoke(killedWhileWritingOwed())).rejects.toBeInstanceOf(StateStoreError);
    // No state written, so nothing on the stream; the notifier's minute finds nothing owed.
    expect(await harness.streamToNotifier(notifier)).toEqual([]);
    expect(await schedule(notifier)).toMatchObject({ taken: 0, published: [] });
    expect(await harness.stack.drain('oncall')).toEqual([]);
    const orphans = await owedKeys();
    expect(orphans).toHaveLength(1);
    expect(orphans[0]).toContain(`|resolved|${iso(4 * MINUTE)}`);

    // The next run evaluates afresh: its own resolutions are told, none of the killed run's.
    at(4 * MINUTE + 30_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    const resolved = byId(await harness.stack.drain('oncall'));
    expect(brief(resolved)).toEqual([
      'any-ringing:resolved:',
      `too-many-ringing:resolved:${DID_A}`,
    ]);
    expect(resolved.flatMap((m) => m.alerts.map((a) => a.at))).toEqual([
      iso(4 * MINUTE + 30_000),
      iso(4 * MINUTE + 30_000),
    ]);

    // Long past the grace period the orphan is still not owed: it is deleted, never told.
    at(7 * MINUTE);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    const later = byId(await harness.stack.drain('oncall'));
    expect(brief(later)).toEqual(['any-ringing:firing:', `too-many-ringing:firing:${DID_B}`]);
    expect(later.flatMap((m) => m.alerts.map((a) => a.at))).toEqual([
      iso(7 * MINUTE),
      iso(7 * MINUTE),
    ]);
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
  });
});
