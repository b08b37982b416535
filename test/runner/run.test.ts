import { describe, expect, it } from 'vitest';
import { ApiHttpError, ApiTimeoutError } from '../../shared/api/errors';
import type { ApiRequest } from '../../shared/api/types';
import type { Notification, SourceState } from '../../shared/engine/types';
import {
  StateConflictError,
  StateStoreError,
  TokenUnavailableError,
} from '../../shared/ports/errors';
import { MemoryPublisher, MemoryStateStore } from '../../shared/ports/memory';
import type { Publisher, StateStore } from '../../shared/ports/types';
import { RecordBatch } from '../../shared/records/batch';
import { readBatch } from '../../shared/records/parse';
import type { ApiRecord, ParsedBatch } from '../../shared/records/types';
import { runSource } from '../../shared/runner/run';
import type { PollClient, RunEvent, RunOptions } from '../../shared/runner/types';
import { call, config, MINUTE, T0, ZONE } from '../engine/fixtures';

const RINGING = config([
  { name: 'too-many-ringing', where: { state: 'Ringing' }, count: '> 1', severity: 'critical' },
]);

/** RINGING with four samples a minute. */
const FOUR_SAMPLES = {
  ...RINGING,
  sources: { ...RINGING.sources, live_calls: { everyMs: MINUTE, samples: 4, query: {} } },
};

/** A clock the runner's `sleep` advances, so spaced samples take no real time. */
function manualClock(start = T0) {
  let nowMs = start;
  return {
    now: () => nowMs,
    sleep: async (ms: number) => {
      nowMs += ms;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

/** Answers each request from `answer`, recording when it was asked. */
function fakeClient(
  clock: { now: () => number },
  answer: () => readonly ApiRecord[] | Error,
): PollClient & { calls: { atMs: number; request: ApiRequest }[] } {
  const calls: { atMs: number; request: ApiRequest }[] = [];
  return {
    calls,
    async request(request: ApiRequest): Promise<ParsedBatch> {
      calls.push({ atMs: clock.now(), request });
      const result = answer();
      if (result instanceof Error) throw result;
      return { records: RecordBatch.of(result), skipped: 0, skipReasons: [] };
    },
  };
}

function options(overrides: Partial<RunOptions> & Pick<RunOptions, 'client' | 'now' | 'sleep'>) {
  const events: RunEvent[] = [];
  const store = new MemoryStateStore({ now: overrides.now });
  const publisher = new MemoryPublisher();
  const run: RunOptions = {
    config: RINGING,
    source: 'live_calls',
    store,
    publisher,
    deadlineMs: overrides.now() + 5 * MINUTE,
    observer: { event: (e) => events.push(e) },
    ...overrides,
  };
  return { run, events, store, publisher };
}

describe('Function: runSource', () => {
  it('commits, publishes and marks sent a notification that fires', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const { run, store, publisher } = options({ client, ...clock });
    const summary = await runSource(run);
    expect(publisher.published.map((n) => [n.rule, n.status, n.value])).toEqual([
      ['too-many-ringing', 'firing', 2],
    ]);
    expect(summary).toMatchObject({ samples: 1, sent: 1, owedLeft: 0, records: 2, failures: 0 });
    expect(await store.load('live_calls')).toMatchObject({ revision: 1, owed: [] });
  });

  it('only commits without a publisher: what it owes stays owed for the notifier to take', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const { run, store } = options({ client, ...clock });
    const { publisher: _unused, ...withoutPublisher } = run;
    const summary = await runSource(withoutPublisher);
    expect(summary).toMatchObject({ samples: 1, sent: 0, owedLeft: 1 });
    const owed = await store.loadOwed('live_calls');
    expect(owed.map((n) => [n.rule, n.status])).toEqual([['too-many-ringing', 'firing']]);

    // A later run sends nothing either, however old the owed event: the notifier takes it.
    clock.advance(10 * MINUTE);
    const later = await runSource({ ...withoutPublisher, deadlineMs: clock.now() + MINUTE });
    expect(later).toMatchObject({ sent: 0, owedLeft: 1 });
    expect(await store.loadOwed('live_calls')).toEqual(owed);
  });

  it('holds nothing without a publisher: a resolved committed while its firing waits for the notifier is owed in order', async () => {
    const clock = manualClock();
    let calls = [call('c1'), call('c2')];
    const client = fakeClient(clock, () => calls);
    const { run, events, store } = options({ client, ...clock });
    const { publisher: _unused, ...withoutPublisher } = run;
    await runSource(withoutPublisher);
    calls = [];
    clock.advance(MINUTE);
    await runSource({ ...withoutPublisher, deadlineMs: clock.now() + MINUTE });
    expect(events.filter((e) => e.type === 'held')).toEqual([]);
    const owed = await store.loadOwed('live_calls');
    expect(owed.map((n) => n.status)).toEqual(['firing', 'resolved']);
  });

  it('takes the configured samples evenly spaced over one period', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run } = options({ client, ...clock, config: FOUR_SAMPLES });
    const summary = await runSource(run);
    expect(client.calls.map((c) => c.atMs - T0)).toEqual([0, 15_000, 30_000, 45_000]);
    expect(summary.samples).toBe(4);
  });

  it('fits all four samples of a minute in a 55 s Lambda that keeps 5 s back', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run } = options({ client, ...clock, config: FOUR_SAMPLES, deadlineMs: T0 + 50_000 });
    expect(await runSource(run)).toMatchObject({ samples: 4, samplesPlanned: 4 });
  });

  it('runs only the sample it is given, at once, and reports that one', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run, events } = options({ client, ...clock, config: FOUR_SAMPLES, samples: [2] });
    const summary = await runSource(run);
    expect(client.calls.map((c) => c.atMs - T0)).toEqual([0]);
    expect(summary).toMatchObject({ samples: 1, samplesPlanned: 1 });
    expect(events.filter((e) => e.type === 'poll').map((e) => e.sample)).toEqual([2]);
  });

  it('takes the given samples at their slots after the first', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run } = options({ client, ...clock, config: FOUR_SAMPLES, samples: [0, 2, 3] });
    expect(await runSource(run)).toMatchObject({ samples: 3, samplesPlanned: 3 });
    expect(client.calls.map((c) => c.atMs - T0)).toEqual([0, 30_000, 45_000]);
  });

  it("runs a source no rule reads asking the API nothing: one sample ends its removed rules' alerts, no heartbeat", async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const { run, events, store, publisher } = options({ client, ...clock, config: FOUR_SAMPLES });
    await runSource({ ...run, samples: [0] });
    expect(publisher.published.map((n) => n.status)).toEqual(['firing']);
    const asked = client.calls.length;
    events.length = 0;

    // A deploy removes the last live-calls rule; four samples a minute are still configured.
    const unread = {
      ...FOUR_SAMPLES,
      rules: config([{ name: 'paid', source: 'payments', where: {} }]).rules,
    };
    for (let round = 0; round < 3; round += 1) {
      clock.advance(10 * MINUTE);
      const summary = await runSource({ ...run, config: unread, deadlineMs: clock.now() + MINUTE });
      expect(summary).toMatchObject({ samples: 1, samplesPlanned: 1, records: 0, failures: 0 });
    }
    expect(client.calls.length).toBe(asked);
    expect(publisher.published.map((n) => [n.rule, n.status])).toEqual([
      ['too-many-ringing', 'firing'],
      ['too-many-ringing', 'resolved'],
    ]);
    expect(publisher.published[1]?.sms).toContain('rule removed from the rules file');
    expect(events.filter((e) => e.type === 'poll' || e.type === 'fetch')).toEqual([]);
    // Written once (the resolution), then never again: no refresh, no heartbeat.
    expect(events.flatMap((e) => (e.type === 'committed' ? [[e.written, e.pollOk]] : []))).toEqual([
      [true, false],
      [false, false],
      [false, false],
    ]);
    expect((await store.load('live_calls')).state?.alerts).toEqual({});
  });

  it('writes nothing for a sample that changes neither the state nor owes a notification', async () => {
    const clock = manualClock();
    let ringing = [call('c1'), call('c2')];
    const client = fakeClient(clock, () => ringing);
    const { run, store, events } = options({ client, ...clock });
    const commits: number[] = [];
    const counting: StateStore = {
      load: (s) => store.load(s),
      commit: async (s, revision, next, owed) => {
        commits.push(revision);
        return store.commit(s, revision, next, owed);
      },
      markSent: (s, ids) => store.markSent(s, ids),
      narrowOwed: (s, id, channels) => store.narrowOwed(s, id, channels),
    };
    await runSource({ ...run, store: counting });
    clock.advance(MINUTE);
    // Still firing: the instance's last sighting moves on, so this sample writes.
    await runSource({ ...run, store: counting });
    ringing = [];
    clock.advance(MINUTE);
    await runSource({ ...run, store: counting });
    clock.advance(MINUTE);
    await runSource({ ...run, store: counting });
    clock.advance(MINUTE);
    await runSource({ ...run, store: counting });
    expect(commits).toEqual([0, 1, 2]);
    const committed = events.filter((e) => e.type === 'committed');
    expect(committed.map((e) => e.type === 'committed' && e.written)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(await store.load('live_calls')).toMatchObject({ revision: 3 });
  });

  it('writes an unchanged state again once the stored one is older than the refresh age', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run, events } = options({
      client,
      ...clock,
      stateRefreshMs: 10 * MINUTE,
      deadlineMs: T0 + 60 * MINUTE,
    });
    for (let minute = 0; minute <= 12; minute += 1) {
      await runSource(run);
      clock.advance(MINUTE);
    }
    const written = events.flatMap((e) =>
      e.type === 'committed' && e.written ? [e.revision] : [],
    );
    // The first sample finds nothing stored; the eleventh finds it ten minutes old.
    expect(written).toEqual([1, 2]);
  });

  it('writes a quiet sample when the store does not say when it last wrote', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    const { run, store } = options({ client, ...clock });
    await runSource(run);
    const ageless: StateStore = {
      load: async (s) => {
        const { writtenAtMs: _unknown, ...stored } = await store.load(s);
        return stored;
      },
      commit: (s, revision, next, owed) => store.commit(s, revision, next, owed),
      markSent: (s, ids) => store.markSent(s, ids),
      narrowOwed: (s, id, channels) => store.narrowOwed(s, id, channels),
    };
    clock.advance(MINUTE);
    await runSource({ ...run, store: ageless });
    expect((await store.load('live_calls')).revision).toBe(2);
  });

  it('keeps the given samples to the schedule that started before the run', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    // Queueing the other samples took 10 s before the run could start.
    const { run } = options({
      client,
      ...clock,
      config: FOUR_SAMPLES,
      samples: [0, 3],
      firstSampleAtMs: T0 - 10_000,
      deadlineMs: T0 + 50_000,
    });
    expect(await runSource(run)).toMatchObject({ samples: 2 });
    expect(client.calls.map((c) => c.atMs - T0)).toEqual([0, 35_000]);
  });

  it('stops sampling when the deadline leaves no room for another sample', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => []);
    // 3 s of request time + 2 s margin: a sample at +30 s needs the deadline at +35 s or later.
    const { run, events } = options({
      client,
      ...clock,
      config: FOUR_SAMPLES,
      deadlineMs: T0 + 34_000,
    });
    const summary = await runSource(run);
    expect(summary).toMatchObject({ samples: 2, samplesPlanned: 4 });
    expect(events).toContainEqual({ type: 'deadline', samplesDone: 2, samplesPlanned: 4 });
  });

  it('leaves a notification owed when publishing fails and delivers it on a run after the grace period', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const broken: Publisher = { publish: async () => Promise.reject(new Error('SNS down')) };
    const { run, store } = options({ client, ...clock, publisher: broken });
    expect(await runSource(run)).toMatchObject({ sent: 0, owedLeft: 1 });

    const publisher = new MemoryPublisher();
    clock.advance(MINUTE);
    await runSource({ ...run, publisher, deadlineMs: clock.now() + MINUTE });
    expect(publisher.published).toHaveLength(0);

    clock.advance(2 * MINUTE);
    const summary = await runSource({ ...run, publisher, deadlineMs: clock.now() + MINUTE });
    expect(publisher.published.map((n) => n.rule)).toEqual(['too-many-ringing']);
    expect(summary.sent).toBe(1);
    expect((await store.load('live_calls')).owed).toEqual([]);
  });

  it('ends a run stopped while asking without counting the stop as a failed poll', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const client: PollClient = {
      async request(_request, options) {
        expect(options.signal).toBe(stop.signal);
        stop.abort();
        throw new ApiTimeoutError({ endpoint: 'live_calls', reason: 'cancelled by the caller' });
      },
    };
    const { run, store, publisher } = options({ client, ...clock, signal: stop.signal });
    expect(await runSource(run)).toMatchObject({ samples: 0, failures: 0, sent: 0 });
    expect(await store.load('live_calls')).toMatchObject({ revision: 0 });
    expect(publisher.published).toEqual([]);
  });

  it('holds a resolved notification behind its firing still owed, then sends both in order', async () => {
    const clock = manualClock();
    let calls = [call('c1'), call('c2')];
    const client = fakeClient(clock, () => calls);
    const broken: Publisher = { publish: async () => Promise.reject(new Error('SNS down')) };
    const { run, store, events } = options({ client, ...clock, publisher: broken });
    expect(await runSource(run)).toMatchObject({ sent: 0, owedLeft: 1 });

    // A minute later the calls are gone: the resolution must not reach anyone before the firing,
    // which is still inside the grace period of the run that left it owed.
    calls = [];
    const publisher = new MemoryPublisher();
    clock.advance(MINUTE);
    expect(await runSource({ ...run, publisher, deadlineMs: clock.now() + MINUTE })).toMatchObject({
      sent: 0,
      owedLeft: 2,
    });
    expect(publisher.published).toEqual([]);
    const owed = (await store.load('live_calls')).owed;
    expect(owed.map((n) => n.status)).toEqual(['firing', 'resolved']);
    expect(events).toContainEqual({ type: 'held', sample: 0, ids: [owed[1]?.id] });

    clock.advance(2 * MINUTE);
    const summary = await runSource({ ...run, publisher, deadlineMs: clock.now() + MINUTE });
    expect(publisher.published.map((n) => n.status)).toEqual(['firing', 'resolved']);
    expect(summary).toMatchObject({ sent: 2, owedLeft: 0 });
  });

  it('narrows a notification only some channels took and later sends it to the others only', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const twoChannels = config([
      {
        name: 'too-many-ringing',
        where: { state: 'Ringing' },
        count: '> 1',
        notify: ['oncall', 'finance'],
      },
    ]);
    // Each publish is told to reach `reachable` only; what the rest was owed is recorded.
    let reachable = new Set(['oncall']);
    const received: [string, string][] = [];
    const publisher: Publisher = {
      async publish(notifications) {
        const partial = [];
        for (const n of notifications) {
          for (const c of n.channels) if (reachable.has(c)) received.push([c, n.id]);
          const missed = n.channels.filter((c) => !reachable.has(c));
          if (missed.length > 0) partial.push({ id: n.id, channels: missed });
        }
        const delivered = notifications.filter((n) => n.channels.every((c) => reachable.has(c)));
        return { delivered: delivered.map((n) => n.id), partial };
      },
    };
    const { run, store, events } = options({ client, ...clock, config: twoChannels, publisher });
    expect(await runSource(run)).toMatchObject({ sent: 0, owedLeft: 1 });
    const [owed] = (await store.load('live_calls')).owed;
    expect(owed?.channels).toEqual(['finance']);
    expect(events).toContainEqual({ type: 'undelivered', sample: 0, ids: [owed?.id] });

    reachable = new Set(['oncall', 'finance']);
    clock.advance(3 * MINUTE);
    const summary = await runSource({ ...run, deadlineMs: clock.now() + MINUTE });
    expect(received).toEqual([
      ['oncall', owed?.id],
      ['finance', owed?.id],
    ]);
    expect(summary.sent).toBe(1);
    expect((await store.load('live_calls')).owed).toEqual([]);
  });

  it('re-evaluates on top of the winner after losing a race, so nothing is sent twice', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const shared = new MemoryStateStore();
    const publisher = new MemoryPublisher();
    const base = { client, ...clock, store: shared, publisher };
    // The winner commits and publishes between the loser's load and its commit.
    let raced = false;
    const racing: StateStore = {
      load: (s) => shared.load(s),
      markSent: (s, ids) => shared.markSent(s, ids),
      narrowOwed: (s, id, channels) => shared.narrowOwed(s, id, channels),
      async commit(s, revision, next: SourceState, owed: readonly Notification[]) {
        if (!raced) {
          raced = true;
          await runSource(options(base).run);
        }
        return shared.commit(s, revision, next, owed);
      },
    };
    const { run, events } = options({ ...base, store: racing });
    const summary = await runSource(run);
    expect(publisher.published.map((n) => n.status)).toEqual(['firing']);
    expect(summary).toMatchObject({ sent: 0, conflicts: 0 });
    expect(events).toContainEqual({ type: 'conflict', sample: 0, retried: true });
  });

  it('reports each committed sample after its poll and before its notifications go out', async () => {
    const clock = manualClock();
    let answers = 0;
    const client = fakeClient(clock, () =>
      answers++ === 0
        ? [call('c1'), call('c2')]
        : new ApiHttpError({ endpoint: 'live_calls', status: 500, reason: 'server error' }),
    );
    const { run, events } = options({ client, ...clock });
    await runSource(run);
    await runSource({ ...run, deadlineMs: clock.now() + MINUTE });
    const order = events
      .filter((e) => e.type === 'poll' || e.type === 'committed' || e.type === 'sent')
      .map((e) => (e.type === 'committed' ? [e.type, e.revision, e.pollOk, e.owed] : [e.type]));
    expect(order).toEqual([
      ['poll'],
      ['committed', 1, true, 1],
      ['sent'],
      ['poll'],
      ['committed', 2, false, 0],
    ]);
  });

  it('reports no commit when the store cannot write the state, even for a quiet sample', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1')]);
    const broken: StateStore = {
      load: async () => ({ state: undefined, revision: 0, owed: [] }),
      markSent: async () => {},
      narrowOwed: async () => {},
      commit: async () => Promise.reject(new StateStoreError('item too large')),
    };
    const { run, events } = options({ client, ...clock, store: broken });
    await expect(runSource(run)).rejects.toThrow(StateStoreError);
    expect(events.map((e) => e.type)).toContain('poll');
    expect(events.map((e) => e.type)).not.toContain('committed');
  });

  it('gives up a sample after losing twice', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => [call('c1'), call('c2')]);
    const always: StateStore = {
      load: async () => ({ state: undefined, revision: 0, owed: [] }),
      markSent: async () => {},
      narrowOwed: async () => {},
      commit: async (s, revision) => Promise.reject(new StateConflictError(s, revision)),
    };
    const { run, publisher } = options({ client, ...clock, store: always });
    expect(await runSource(run)).toMatchObject({ samples: 1, conflicts: 1, sent: 0 });
    expect(publisher.published).toEqual([]);
  });

  it('counts an API error as a failed poll and raises source_unavailable after health.after', async () => {
    const clock = manualClock();
    const client = fakeClient(
      clock,
      () => new ApiHttpError({ endpoint: 'live_calls', status: 500, reason: 'server error' }),
    );
    const { run, publisher, events } = options({ client, ...clock });
    for (let i = 0; i < 4; i += 1) {
      expect(await runSource({ ...run, deadlineMs: clock.now() + MINUTE })).toMatchObject({
        failures: 1,
      });
      clock.advance(MINUTE);
    }
    expect(publisher.published.map((n) => [n.rule, n.status])).toEqual([
      ['source_unavailable', 'firing'],
    ]);
    expect(events.filter((e) => e.type === 'fetch')[0]).toMatchObject({
      endpoint: 'live_calls',
      failure: { kind: 'http', status: 500 },
    });
  });

  it('turns an unreadable token into an auth failure of the poll', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => new TokenUnavailableError('SSM is down'));
    const { run, events } = options({ client, ...clock });
    expect(await runSource(run)).toMatchObject({ failures: 1 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'poll', failure: { kind: 'auth', message: 'SSM is down' } }),
    );
  });

  it('counts the settled row of a payment two requests of one poll list differently, whichever request is first', async () => {
    // Two amount push-downs: one request per amount, and a payment above both comes in each.
    const pushedDown = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending', amount_paid: '>= 100' } },
      { name: 'large', source: 'payments', where: { amount_paid: '>= 500' } },
    ]);
    const row = { id: 'p1', amount_paid: '750', created_at: '2026-11-21 09:50:00' };
    const pending = { ...row, status: 'pending', payment_id: '' };
    const success = { ...row, status: 'success', payment_id: 'pay_1' };
    for (const settledBy of ['100', '500']) {
      const clock = manualClock();
      let settled = false;
      const client: PollClient = {
        async request(request: ApiRequest): Promise<ParsedBatch> {
          const amount = request.endpoint === 'payments' ? request.query.amount : undefined;
          return readBatch('payments', [settled && amount === settledBy ? success : pending], ZONE);
        },
      };
      const { run, publisher } = options({
        client,
        ...clock,
        config: pushedDown,
        source: 'payments',
      });
      await runSource(run);
      clock.advance(5 * MINUTE);
      // The payment settles while the poll asks: one request sees it pending, the other settled.
      settled = true;
      await runSource({ ...run, deadlineMs: clock.now() + MINUTE });
      expect(publisher.published.map((n) => `${n.status} ${n.key}`)).toEqual([
        'firing stuck{id=p1}',
        'firing large{id=p1}',
        'resolved stuck{id=p1}',
      ]);
    }
  });

  it('rethrows an error that is neither the API nor the token failing', async () => {
    const clock = manualClock();
    const client = fakeClient(clock, () => new TypeError('a bug'));
    const { run } = options({ client, ...clock });
    await expect(runSource(run)).rejects.toThrow(TypeError);
  });
});
