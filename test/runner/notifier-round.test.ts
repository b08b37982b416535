import { describe, expect, it } from 'vitest';
import type { Notification } from '../../shared/engine/types';
import { NotifierStateTooLargeError } from '../../shared/ports/errors';
import {
  MemoryMessagePublisher,
  MemoryNotifierStore,
  MemoryStateStore,
} from '../../shared/ports/memory';
import type { NotifierCommit } from '../../shared/ports/notifier';
import type { OwedEvents } from '../../shared/ports/types';
import { notifierRound } from '../../shared/runner/notifier-round';
import type { SourceName } from '../../shared/types/config';
import { config, DEFAULT_GROUP, MINUTE, T0 } from '../engine/fixtures';
import { ringingEvent } from '../notifier/events';

const CONFIG = config([]);

function paymentEvent(key: string, atMs: number): Notification {
  return ringingEvent(key, atMs, {
    id: `large{payment_id=${key}}|firing|${atMs}`,
    source: 'payments',
    rule: 'large',
    key: `large{payment_id=${key}}`,
    labels: { payment_id: key },
  });
}

/** The pollers' store with `events` committed as owed, as their runs leave them. */
async function committed(events: readonly Notification[]): Promise<MemoryStateStore> {
  const store = new MemoryStateStore({ now: () => T0 });
  for (const source of ['live_calls', 'payments'] as const) {
    const own = events.filter((event) => event.source === source);
    if (own.length > 0) await store.commit(source, 0, { instances: {} } as never, own);
  }
  return store;
}

describe('Function: notifierRound', () => {
  it("tells every source's committed events, oldest first, then marks them sent", async () => {
    const events = await committed([
      ringingEvent('late', T0 + 30_000),
      paymentEvent('p1', T0),
      ringingEvent('early', T0 + 10_000),
    ]);
    const publisher = new MemoryMessagePublisher();
    const result = await notifierRound({
      config: CONFIG,
      events,
      store: new MemoryNotifierStore(),
      publisher,
      now: () => T0 + MINUTE,
    });
    expect(result.takenEvents.map((event) => event.key)).toEqual([
      'large{payment_id=p1}',
      'ringing{call_id=early}',
      'ringing{call_id=late}',
    ]);
    expect(result).toMatchObject({ taken: 3, skipped: 0, markSentFailed: [] });
    expect(publisher.published.flatMap((m) => m.alerts.map((a) => a.key))).toEqual([
      'large{payment_id=p1}',
      'ringing{call_id=early}',
      'ringing{call_id=late}',
    ]);
    expect(await events.loadOwed('live_calls')).toEqual([]);
    expect(await events.loadOwed('payments')).toEqual([]);
  });

  it('leaves the events owed when its step fails before committing, and the next round tells them once', async () => {
    const events = await committed([ringingEvent('a', T0)]);
    const store = new MemoryNotifierStore();
    const broken = new (class extends MemoryNotifierStore {
      override async commitNotifier(): Promise<number> {
        throw new Error('DynamoDB is down');
      }
    })();
    const publisher = new MemoryMessagePublisher();
    const round = (notifierStore: MemoryNotifierStore) =>
      notifierRound({ config: CONFIG, events, store: notifierStore, publisher, now: () => T0 });
    await expect(round(broken)).rejects.toThrow('DynamoDB is down');
    expect(await events.loadOwed('live_calls')).toHaveLength(1);
    expect((await round(store)).taken).toBe(1);
    expect(publisher.published).toHaveLength(1);
    expect(await events.loadOwed('live_calls')).toEqual([]);
  });

  it('reports a source it could not mark sent, and the next round skips those events and marks them', async () => {
    const store = await committed([ringingEvent('a', T0), paymentEvent('p1', T0)]);
    let failing = true;
    const events: OwedEvents = {
      loadOwed: (source) => store.loadOwed(source),
      markSent: async (source: SourceName, ids) => {
        if (failing && source === 'payments') throw new Error('throttled');
        await store.markSent(source, ids);
      },
    };
    const notifier = new MemoryNotifierStore();
    const publisher = new MemoryMessagePublisher();
    const round = (nowMs: number) =>
      notifierRound({ config: CONFIG, events, store: notifier, publisher, now: () => nowMs });

    const first = await round(T0);
    expect(first.markSentFailed.map((failure) => failure.source)).toEqual(['payments']);
    expect(await store.loadOwed('live_calls')).toEqual([]);
    expect(await store.loadOwed('payments')).toHaveLength(1);

    failing = false;
    const second = await round(T0 + MINUTE);
    expect(second).toMatchObject({ taken: 0, skipped: 1, markSentFailed: [] });
    expect(await store.loadOwed('payments')).toEqual([]);
    // Told once: the second round decided nothing new.
    expect(publisher.published.flatMap((m) => m.alerts.map((a) => a.key)).sort()).toEqual([
      'large{payment_id=p1}',
      'ringing{call_id=a}',
    ]);
  });

  it('runs as the clock tick when no poller owes anything', async () => {
    const result = await notifierRound({
      config: CONFIG,
      events: new MemoryStateStore(),
      store: new MemoryNotifierStore(),
      publisher: new MemoryMessagePublisher(),
      now: () => T0,
    });
    expect(result).toMatchObject({ taken: 0, skipped: 0, decided: [], published: [] });
  });

  it('does not acknowledge, by a call to ack.did, an alert that fired in the same poll as the call', async () => {
    const escalating = config([
      { name: 'abandoned', escalate: [{ afterMs: 10 * MINUTE, notify: ['finance'] }] },
    ]);
    const key = 'ack_call{call_id=k1}';
    const call = ringingEvent('k1', T0, {
      id: `${key}|call`,
      rule: 'ack_call',
      key,
      severity: 'info',
      labels: { call_id: 'k1', from: '+12025550100' },
    });
    // A rule whose events sort before `ack_call` by id: only the evaluation's own order holds.
    const firing = ringingEvent('c9', T0, {
      id: `abandoned{call_id=c9}|firing|${new Date(T0).toISOString()}`,
      rule: 'abandoned',
      key: 'abandoned{call_id=c9}',
    });
    const events = await committed([call, firing]);
    const publisher = new MemoryMessagePublisher();
    await notifierRound({
      config: escalating,
      events,
      store: new MemoryNotifierStore(),
      publisher,
      now: () => T0 + 1_000,
    });
    const ack = publisher.published.find((m) => m.kind === 'ack');
    expect(ack?.alerts.map((a) => a.key)).toEqual([]);
    // The firing is told, and stays unacknowledged: its escalation is still to come.
    expect(
      publisher.published.filter((m) => m.kind === 'alerts').map((m) => m.alerts[0]?.key),
    ).toEqual(['abandoned{call_id=c9}']);
  });

  /** A store that, like the DynamoDB item, holds only so much: here, so many remembered ids. */
  class SmallNotifierStore extends MemoryNotifierStore {
    constructor(private readonly maxIds: number) {
      super();
    }
    override async commitNotifier(expected: number, next: NotifierCommit): Promise<number> {
      const ids = Object.keys(next.consumed).length;
      if (ids > this.maxIds) throw new NotifierStateTooLargeError(ids, this.maxIds);
      return super.commitNotifier(expected, next);
    }
  }

  const backlog = (n: number) =>
    Array.from({ length: n }, (_, i) => ringingEvent(`b${i}`, T0 + i * 1_000));

  it('takes a backlog a bounded step at a time, marking each sent, so what it remembers stays bounded', async () => {
    const events = await committed(backlog(25));
    // Remembering all 25 ids at once would not fit: one step of them all failed every round.
    const store = new SmallNotifierStore(10);
    const publisher = new MemoryMessagePublisher();
    const result = await notifierRound({
      config: CONFIG,
      events,
      store,
      publisher,
      now: () => T0 + MINUTE,
      maxEventsPerStep: 10,
    });
    expect(result).toMatchObject({ taken: 25, steps: 3, left: 0, markSentFailed: [] });
    expect(await events.loadOwed('live_calls')).toEqual([]);
    expect(Object.keys((await store.loadNotifier()).consumed).length).toBeLessThanOrEqual(10);
    // The group's first message went at once, the rest is held for its interval: the clock's
    // tick then tells it, each event once.
    await notifierRound({ config: CONFIG, events, store, publisher, now: () => T0 + 7 * MINUTE });
    const told = publisher.published.flatMap((m) => m.alerts.map((a) => a.key));
    expect(told).toHaveLength(25);
    expect(new Set(told).size).toBe(25);
  });

  it('leaves what its deadline does not allow to the next round, which takes it', async () => {
    const store = await committed(backlog(25));
    let nowMs = T0 + MINUTE;
    // Slow deletes: marking a step's events sent takes 15 s of the invocation's time.
    const events: OwedEvents = {
      loadOwed: (source) => store.loadOwed(source),
      markSent: async (source, ids) => {
        nowMs += 15_000;
        await store.markSent(source, ids);
      },
    };
    const notifier = new MemoryNotifierStore();
    const publisher = new MemoryMessagePublisher();
    const round = () =>
      notifierRound({
        config: CONFIG,
        events,
        store: notifier,
        publisher,
        now: () => nowMs,
        // 20 s left: after one step's 15 s, less than the 10 s another step keeps free.
        deadlineMs: nowMs + 20_000,
        maxEventsPerStep: 10,
      });
    expect(await round()).toMatchObject({ taken: 10, left: 15, steps: 1 });
    expect(await store.loadOwed('live_calls')).toHaveLength(15);
    expect(await round()).toMatchObject({ taken: 10, left: 5, steps: 1 });
    expect(await round()).toMatchObject({ taken: 5, left: 0, steps: 1 });
    expect(await store.loadOwed('live_calls')).toEqual([]);
  });

  describe('during an SNS outage', () => {
    const { oncall, ...others } = config([]).channels;
    if (oncall === undefined) throw new Error('the fixture config has no oncall channel');
    /** Each call its own group: one message per event. */
    const PER_CALL = config([], {
      channels: { ...others, oncall: { ...oncall, group: { ...DEFAULT_GROUP, by: ['call_id'] } } },
    });
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ringingEvent(`c${i}`, T0 + i));

    /** SNS refusing: each message costs `costMs` of the invocation's time, then fails. */
    class RefusingPublisher extends MemoryMessagePublisher {
      refusing = true;
      constructor(
        private readonly clock: { nowMs: number },
        private readonly costMs: number,
      ) {
        super();
      }
      override async publish(messages: Parameters<MemoryMessagePublisher['publish']>[0]) {
        if (!this.refusing) return super.publish(messages);
        this.clock.nowMs += this.costMs * messages.length;
        throw new Error('SNS: ServiceUnavailable');
      }
    }

    it('marks the events sent once its step committed, before publishing: a round killed while publishing leaves messages owed, never events', async () => {
      const events = await committed(calls(3));
      let publishing: () => void = () => {};
      const publishReached = new Promise<void>((resolve) => {
        publishing = resolve;
      });
      // SNS never answers and the invocation ends there, as one that times out.
      const hanging = {
        publish: () => {
          publishing();
          return new Promise<never>(() => {});
        },
      };
      const store = new MemoryNotifierStore();
      void notifierRound({
        config: PER_CALL,
        events,
        store,
        publisher: hanging,
        now: () => T0 + MINUTE,
      });
      await publishReached;
      expect(await events.loadOwed('live_calls')).toEqual([]);
      expect((await store.loadNotifier()).owed).toHaveLength(3);

      const publisher = new MemoryMessagePublisher();
      const next = await notifierRound({
        config: PER_CALL,
        events,
        store,
        publisher,
        now: () => T0 + 4 * MINUTE,
      });
      expect(next).toMatchObject({ taken: 0, decided: [] });
      expect(publisher.published.flatMap((m) => m.alerts.map((a) => a.key)).sort()).toEqual([
        'ringing{call_id=c0}',
        'ringing{call_id=c1}',
        'ringing{call_id=c2}',
      ]);
    });

    it('stops publishing 10 s before its deadline, leaving the rest owed for the next round', async () => {
      const events = await committed(calls(100));
      const clock = { nowMs: T0 + MINUTE };
      const publisher = new RefusingPublisher(clock, 1_000);
      const deadlineMs = clock.nowMs + 50_000;
      const result = await notifierRound({
        config: PER_CALL,
        events,
        store: new MemoryNotifierStore(),
        publisher,
        now: () => clock.nowMs,
        deadlineMs,
      });
      expect(result.decided).toHaveLength(100);
      expect(result.unpublished).toHaveLength(100);
      // Each refused message costs a second: 40 of them fit before the 10 s kept free.
      expect(clock.nowMs).toBe(deadlineMs - 10_000);
    });

    it('remembers the events it took in for as long as they are still owed, past the hour', async () => {
      const store = await committed(calls(2));
      // Marks fail for three hours (DynamoDB refusing deletes): the events are handed over again.
      let failing = true;
      const events: OwedEvents = {
        loadOwed: (source) => store.loadOwed(source),
        markSent: async (source, ids) => {
          if (failing) throw new Error('throttled');
          await store.markSent(source, ids);
        },
      };
      const notifier = new MemoryNotifierStore();
      const publisher = new MemoryMessagePublisher();
      const round = (nowMs: number) =>
        notifierRound({ config: PER_CALL, events, store: notifier, publisher, now: () => nowMs });
      expect((await round(T0)).taken).toBe(2);
      for (let hour = 1; hour <= 3; hour += 1) {
        expect(await round(T0 + hour * 60 * MINUTE)).toMatchObject({ taken: 0, skipped: 2 });
      }
      failing = false;
      expect(await round(T0 + 4 * 60 * MINUTE)).toMatchObject({ taken: 0, skipped: 2 });
      expect(await store.loadOwed('live_calls')).toEqual([]);
      expect(publisher.published).toHaveLength(2);
    });
  });
});
