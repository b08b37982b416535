import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeNotifierItem } from '../../functions/adapters/dynamodb-notifier';
import { evaluate } from '../../shared/engine/evaluate';
import { MAX_ALERTS_PER_SOURCE } from '../../shared/engine/limit';
import type { Notification } from '../../shared/engine/types';
import { decide } from '../../shared/notifier/decide';
import { MAX_FOLLOWED_ALERTS } from '../../shared/notifier/follow';
import { NotifierStateTooLargeError } from '../../shared/ports/errors';
import {
  MemoryMessagePublisher,
  MemoryNotifierStore,
  MemoryStateStore,
} from '../../shared/ports/memory';
import type { NotifierCommit } from '../../shared/ports/notifier';
import { MAX_EVENTS_PER_STEP, notifierRound } from '../../shared/runner/notifier-round';
import { notifierStep } from '../../shared/runner/notifier-step';
import { call, config, MINUTE, ok, payment, T0 } from '../engine/fixtures';

/** Rules on both sources that repeat and escalate: every alert they fire is one to follow. */
const CONFIG = config([
  {
    name: 'payment-stuck',
    source: 'payments',
    where: { status: 'pending' },
    repeatMs: 30 * MINUTE,
    escalate: [{ afterMs: 15 * MINUTE, notify: ['finance'] }],
  },
  {
    name: 'call-ringing',
    where: { state: 'Ringing' },
    severity: 'critical',
    repeatMs: 30 * MINUTE,
    escalate: [{ afterMs: 15 * MINUTE, notify: ['finance'] }],
  },
]);

/** Ids as the provider makes them: random, so they compress as badly as real ones. */
const random = (seed: string, length: number) =>
  createHash('sha256').update(seed).digest('base64url').slice(0, length);

const GATEWAYS = ['razorpay', 'payu', 'cashfree', 'ccavenue', 'paytm'];

/** Both pollers at their cap: the engine's own events for 6,000 payments and 6,000 calls. */
function flood(): Notification[] {
  const payments = Array.from({ length: MAX_ALERTS_PER_SOURCE }, (_, n) =>
    payment(
      `pay_${random(`p${n}`, 14)}`,
      {
        gateway: GATEWAYS[n % GATEWAYS.length] ?? 'razorpay',
        amount_paid: `${Number.parseInt(random(`a${n}`, 6).replace(/\W/g, '0'), 36) % 100_000}.${n % 100}`,
      },
      T0 - 10 * MINUTE,
    ),
  );
  const calls = Array.from({ length: MAX_ALERTS_PER_SOURCE }, (_, n) =>
    call(
      `${random(`c${n}`, 8)}-${random(`d${n}`, 12)}`,
      { from: `+9198${random(`f${n}`, 8).replace(/\D/g, '7').padEnd(8, '0')}` },
      T0 - MINUTE,
    ),
  );
  return [
    ...evaluate(CONFIG, 'payments', ok(...payments), T0).notifications,
    ...evaluate(CONFIG, 'live_calls', ok(...calls), T0).notifications,
  ];
}

/** The in-memory store, holding each commit to the DynamoDB store's own encoding and limit. */
class ItemSizedStore extends MemoryNotifierStore {
  override async commitNotifier(expected: number, next: NotifierCommit): Promise<number> {
    encodeNotifierItem(next.state, next.consumed);
    return super.commitNotifier(expected, next);
  }
}

describe('Function: notifierStep, both pollers at their cap with alerts to follow', () => {
  const events = flood();

  it('cannot store a state that follows every one of them, even releasing what it holds', () => {
    expect(events).toHaveLength(2 * MAX_ALERTS_PER_SOURCE);
    const everything = decide(CONFIG, undefined, events, T0, [], {
      release: true,
      followAtMost: events.length,
    });
    const consumed = Object.fromEntries(events.map((event) => [event.id, T0]));
    expect(() => encodeNotifierItem(everything.state, consumed)).toThrow(
      NotifierStateTooLargeError,
    );
  });

  it('commits a state the DynamoDB item holds, telling every firing and following the limit', async () => {
    const store = new ItemSizedStore();
    const publisher = new MemoryMessagePublisher();
    const first = await notifierStep({ config: CONFIG, store, publisher, now: () => T0, events });
    expect(first).toMatchObject({ taken: events.length, released: false, unpublished: [] });
    const told = first.decided.flatMap((item) => item.delivers);
    expect(new Set(told)).toEqual(new Set(events.map((event) => event.id)));
    expect(told).toHaveLength(events.length);
    expect(first.unfollowed).toHaveLength(events.length - MAX_FOLLOWED_ALERTS);
    // The calls are critical: they keep their escalation, the payments give way.
    const stored = await store.loadNotifier();
    const alerts = Object.values(stored.state?.alerts ?? {});
    expect(alerts).toHaveLength(MAX_FOLLOWED_ALERTS);
    expect(alerts.every((alert) => alert.rule === 'call-ringing')).toBe(true);

    const escalation = await notifierStep({
      config: CONFIG,
      store,
      publisher,
      now: () => T0 + 15 * MINUTE,
    });
    const escalated = escalation.decided.filter((item) => item.message.kind === 'escalation');
    expect(escalated.flatMap((item) => item.message.alerts)).toHaveLength(MAX_FOLLOWED_ALERTS);
    expect(escalated.every((item) => item.message.channel === 'finance')).toBe(true);
  });

  it('takes them in the deployed round, a step of 5,000 at a time, every step committing', async () => {
    const owed = new MemoryStateStore({ now: () => T0 });
    for (const source of ['payments', 'live_calls'] as const) {
      const own = events.filter((event) => event.source === source);
      await owed.commit(source, 0, { instances: {} } as never, own);
    }
    const store = new ItemSizedStore();
    const round = await notifierRound({
      config: CONFIG,
      events: owed,
      store,
      publisher: new MemoryMessagePublisher(),
      now: () => T0,
    });
    expect(round).toMatchObject({
      taken: events.length,
      left: 0,
      steps: Math.ceil(events.length / MAX_EVENTS_PER_STEP),
      released: false,
    });
    // A later step's events join groups that just sent: they go once the interval has passed.
    const publisher = new MemoryMessagePublisher();
    const tick = await notifierStep({
      config: CONFIG,
      store,
      publisher,
      now: () => T0 + 5 * MINUTE,
    });
    const told = [...round.decided, ...tick.decided].flatMap((item) => item.delivers);
    expect(new Set(told)).toEqual(new Set(events.map((event) => event.id)));
    expect(round.unfollowed).toHaveLength(events.length - MAX_FOLLOWED_ALERTS);
    const alerts = Object.values((await store.loadNotifier()).state?.alerts ?? {});
    expect(alerts).toHaveLength(MAX_FOLLOWED_ALERTS);
    expect(alerts.every((alert) => alert.rule === 'call-ringing')).toBe(true);
  });
});
