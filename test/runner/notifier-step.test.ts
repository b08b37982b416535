import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/notifier/types';
import { NotifierConflictError, NotifierStateTooLargeError } from '../../shared/ports/errors';
import { MemoryMessagePublisher, MemoryNotifierStore } from '../../shared/ports/memory';
import type { MessagePublisher, NotifierCommit } from '../../shared/ports/notifier';
import { notifierStep } from '../../shared/runner/notifier-step';
import { config, MINUTE, T0 } from '../engine/fixtures';
import { ringingEvent as event } from '../notifier/events';
import { distinctAlerts, OFFICE } from '../notifier/weekend';

const CONFIG = config([]);

class FailingPublisher implements MessagePublisher {
  async publish(): Promise<{ delivered: readonly string[] }> {
    throw new Error('SNS is down');
  }
}

describe('Function: notifierStep', () => {
  it('commits the state, publishes the messages it decided and owes nothing after', async () => {
    const store = new MemoryNotifierStore();
    const publisher = new MemoryMessagePublisher();
    const result = await notifierStep({
      config: CONFIG,
      store,
      publisher,
      now: () => T0,
      events: [event('a', T0)],
    });
    expect(result.taken).toBe(1);
    expect(publisher.published.map((m) => m.alerts.map((a) => a.key))).toEqual([
      ['ringing{call_id=a}'],
    ]);
    expect((await store.loadNotifier()).owed).toEqual([]);
  });

  it('skips an event handed over again (it was not marked sent after the step took it in)', async () => {
    const store = new MemoryNotifierStore();
    const publisher = new MemoryMessagePublisher();
    const step = (nowMs: number) =>
      notifierStep({
        config: CONFIG,
        store,
        publisher,
        now: () => nowMs,
        events: [event('a', T0)],
      });
    await step(T0);
    const again = await step(T0 + 10 * MINUTE);
    expect(again.skipped).toBe(1);
    expect(publisher.published).toHaveLength(1);
  });

  it('publishes after a crash between commit and publish, with the same message id', async () => {
    const store = new MemoryNotifierStore();
    const crashed = await notifierStep({
      config: CONFIG,
      store,
      publisher: new FailingPublisher(),
      now: () => T0,
      events: [event('a', T0)],
    });
    const [decided] = crashed.decided;
    expect(crashed.unpublished).toEqual([decided?.message.id]);
    const publisher = new MemoryMessagePublisher();
    // Within the grace period the step that decided it may still be publishing: left alone.
    await notifierStep({ config: CONFIG, store, publisher, now: () => T0 + MINUTE });
    expect(publisher.published).toEqual([]);
    await notifierStep({ config: CONFIG, store, publisher, now: () => T0 + 3 * MINUTE });
    expect(publisher.published.map((m) => m.id)).toEqual([decided?.message.id]);
    expect((await store.loadNotifier()).owed).toEqual([]);
  });

  it('stops owing a message its channel has no topic for, and returns it whole (contract 6.1 rule 8)', async () => {
    const store = new MemoryNotifierStore();
    const crashed = await notifierStep({
      config: CONFIG,
      store,
      publisher: new FailingPublisher(),
      now: () => T0,
      events: [event('a', T0)],
    });
    const [decided] = crashed.decided;
    // A deploy renamed the channel meanwhile: its topic is gone, no retry can deliver it.
    const noTopic: MessagePublisher = {
      publish: async (messages) => ({ delivered: [], undeliverable: messages.map((m) => m.id) }),
    };
    const after = await notifierStep({
      config: CONFIG,
      store,
      publisher: noTopic,
      now: () => T0 + 3 * MINUTE,
    });
    expect(after.undeliverable).toEqual([decided?.message]);
    expect(after.unpublished).toEqual([]);
    expect((await store.loadNotifier()).owed).toEqual([]);
  });

  it('decides again from the winner state after a lost race, and sends nothing twice', async () => {
    const store = new MemoryNotifierStore();
    const publisher = new MemoryMessagePublisher();
    const racing = new (class extends MemoryNotifierStore {
      #raced = false;
      override async commitNotifier(expected: number, next: NotifierCommit): Promise<number> {
        if (!this.#raced) {
          this.#raced = true;
          // Another step (the clock's) takes the same event first.
          await notifierStep({
            config: CONFIG,
            store,
            publisher,
            now: () => T0,
            events: [event('a', T0)],
          });
          throw new NotifierConflictError(expected);
        }
        return store.commitNotifier(expected, next);
      }
      override loadNotifier() {
        return store.loadNotifier();
      }
      override markMessagesSent(ids: readonly string[]) {
        return store.markMessagesSent(ids);
      }
    })();
    const result = await notifierStep({
      config: CONFIG,
      store: racing,
      publisher,
      now: () => T0,
      events: [event('a', T0)],
    });
    expect(result.skipped).toBe(1);
    expect(publisher.published.map((m: Message) => m.alerts[0]?.key)).toEqual([
      'ringing{call_id=a}',
    ]);
  });

  it('tells what it kept at once, before the active hours, when the state is too large to store', async () => {
    /** A store that holds what the DynamoDB item holds, scaled down to 5,000 bytes. */
    const small = new (class extends MemoryNotifierStore {
      override async commitNotifier(expected: number, next: NotifierCommit): Promise<number> {
        const bytes = gzipSync(JSON.stringify({ state: next.state, consumed: {} })).byteLength;
        if (bytes > 5_000) throw new NotifierStateTooLargeError(bytes, 5_000);
        return super.commitNotifier(expected, next);
      }
    })();
    const publisher = new MemoryMessagePublisher();
    // Saturday 11:00 IST: finance (Mon-Fri 09:00-18:00) is out of office.
    const saturday = Date.parse('2026-11-28T11:00:00+05:30');
    const step = (events: ReturnType<typeof distinctAlerts>, nowMs: number) =>
      notifierStep({ config: OFFICE, store: small, publisher, now: () => nowMs, events });
    const first = await step(distinctAlerts(0, 50, saturday), saturday);
    expect(first.released).toBe(false);
    expect(publisher.published).toEqual([]);

    const second = await step(distinctAlerts(50, 250, saturday + MINUTE), saturday + MINUTE);
    expect(second.released).toBe(true);
    expect(publisher.published.map((m) => [m.channel, m.kind, m.alerts.length])).toEqual([
      ['finance', 'digest', 300],
    ]);
    expect(publisher.published[0]?.text).toContain('sent before the active hours start');
    expect(second.decided.flatMap((item) => item.delivers)).toHaveLength(300);
    expect((await small.loadNotifier()).state?.channels.finance).toBeUndefined();
  });

  it('remembers the events it took in for less time when their ids alone make the state too large', async () => {
    /** A store whose item holds the ids of 150 events taken in, as a flood fills the real one. */
    const small = new (class extends MemoryNotifierStore {
      override async commitNotifier(expected: number, next: NotifierCommit): Promise<number> {
        const ids = Object.keys(next.consumed).length;
        if (ids > 150) throw new NotifierStateTooLargeError(ids, 150);
        return super.commitNotifier(expected, next);
      }
    })();
    const publisher = new MemoryMessagePublisher();
    const batch = (from: number, atMs: number) =>
      Array.from({ length: 100 }, (_, i) => event(`c${from + i}`, atMs));
    await notifierStep({
      config: CONFIG,
      store: small,
      publisher,
      now: () => T0,
      events: batch(0, T0),
    });
    // Within the hour, but past three runs of the slowest poller (payments, every 5 minutes).
    const later = T0 + 20 * MINUTE;
    const result = await notifierStep({
      config: CONFIG,
      store: small,
      publisher,
      now: () => later,
      events: batch(100, later),
    });
    expect(result).toMatchObject({ taken: 100, released: true, unpublished: [] });
    const told = new Set(publisher.published.flatMap((m) => m.alerts.map((a) => a.key)));
    expect(told.size).toBe(200);
    const kept = Object.values((await small.loadNotifier()).consumed);
    expect(kept).toHaveLength(100);
    expect(kept.every((at) => at === later)).toBe(true);
  });
});
