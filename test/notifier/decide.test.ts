import { describe, expect, it } from 'vitest';
import { isActive, nextWindowStart } from '../../shared/notifier/active';
import { decide } from '../../shared/notifier/decide';
import { IncompatibleNotifierStateError } from '../../shared/notifier/errors';
import type { NotifierState } from '../../shared/notifier/types';
import { zonedTimeToEpoch } from '../../shared/time/zone';
import type { Config } from '../../shared/types/config';
import { config, MINUTE, T0 } from '../engine/fixtures';
import { ringingEvent as event } from './events';

const CONFIG = config([]);

describe('Function: decide', () => {
  it('gives a message decided again from the same state and events the same id', () => {
    const first = decide(CONFIG, undefined, [event('a', T0)], T0);
    const held = decide(CONFIG, first.state, [event('b', T0 + MINUTE)], T0 + MINUTE);
    expect(held.messages).toEqual([]);
    expect(held.nextDueAtMs).toBe(T0 + 5 * MINUTE);
    const once = decide(CONFIG, held.state, [], T0 + 5 * MINUTE);
    const again = decide(CONFIG, held.state, [], T0 + 6 * MINUTE);
    expect(once.messages.map((m) => m.message.id)).toEqual(again.messages.map((m) => m.message.id));
    expect(once.messages[0]?.delivers).toEqual([event('b', T0 + MINUTE).id]);
  });

  it('keeps nothing once every group is quiet and nothing is held', () => {
    const sent = decide(CONFIG, undefined, [event('a', T0)], T0);
    const resolution = event('a', T0 + MINUTE, {
      id: `ringing{call_id=a}|resolved|${T0 + MINUTE}`,
      status: 'resolved',
    });
    const over = decide(CONFIG, sent.state, [resolution], T0 + MINUTE);
    const later = decide(CONFIG, over.state, [], T0 + 5 * MINUTE);
    expect(later.messages.map((item) => item.message.alerts[0]?.status)).toEqual(['resolved']);
    // The SMS of the hour is still remembered for the cap.
    expect(Object.keys(later.state.channels.oncall?.groups ?? {})).toEqual([]);
    expect(decide(CONFIG, later.state, [], T0 + 66 * MINUTE).state.channels).toEqual({});
  });

  it('sends no SMS for a message below the channel minSeverity, and does not count it', () => {
    const oncall = CONFIG.channels.oncall;
    if (oncall === undefined) throw new Error('fixture has oncall');
    const strict: Config = {
      ...CONFIG,
      channels: { oncall: { ...oncall, minSeverity: 'warning' } },
    };
    const decision = decide(strict, undefined, [event('a', T0, { severity: 'info' })], T0);
    expect(decision.messages[0]?.message.sms).toBeNull();
    expect(decision.state.channels.oncall?.smsSentAt).toEqual([]);
  });

  it('tells a held group and the SMS the cap held at once when releasing (the state too large to store)', () => {
    const oncall = CONFIG.channels.oncall;
    if (oncall === undefined) throw new Error('fixture has oncall');
    const capped: Config = { ...CONFIG, channels: { oncall: { ...oncall, smsPerHour: 1 } } };
    const first = decide(capped, undefined, [event('a', T0)], T0);
    const held = decide(capped, first.state, [event('b', T0 + MINUTE)], T0 + MINUTE);
    expect(decide(capped, held.state, [], T0 + 2 * MINUTE).messages).toEqual([]);

    const released = decide(capped, held.state, [], T0 + 2 * MINUTE, [], { release: true });
    expect(
      released.messages.map((item) => [item.message.kind, item.smsHeld, item.message.sms !== null]),
    ).toEqual([
      ['alerts', true, false],
      ['digest', false, true],
    ]);
    expect(released.messages[0]?.delivers).toEqual([event('b', T0 + MINUTE).id]);
    expect(released.state.channels.oncall?.smsHeld).toEqual([]);
    expect(
      Object.values(released.state.channels.oncall?.groups ?? {}).flatMap((group) => group.held),
    ).toEqual([]);
  });

  it('refuses a stored state of another version rather than dropping what it holds', () => {
    const stored = { version: 2, channels: {} } as unknown as NotifierState;
    expect(() => decide(CONFIG, stored, [], T0)).toThrow(IncompatibleNotifierStateError);
  });
});

describe('Function: isActive / nextWindowStart', () => {
  const weekdays = {
    days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const,
    fromMinutes: 540,
    toMinutes: 1080,
  };

  it('defers a Saturday to Monday 09:00 in the configured zone', () => {
    const saturday = zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 21, 23);
    expect(isActive(weekdays, saturday, 'Asia/Kolkata')).toBe(false);
    expect(nextWindowStart(weekdays, saturday, 'Asia/Kolkata')).toBe(
      zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 23, 9),
    );
  });

  it('opens at from and closes at to (exclusive)', () => {
    const monday = (h: number, m = 0) => zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 23, h, m);
    expect(isActive(weekdays, monday(9), 'Asia/Kolkata')).toBe(true);
    expect(isActive(weekdays, monday(8, 59), 'Asia/Kolkata')).toBe(false);
    expect(isActive(weekdays, monday(18), 'Asia/Kolkata')).toBe(false);
  });

  it('follows the wall clock across a DST change', () => {
    // Europe/London moves to BST on 2026-03-29: 09:00 that Monday is 08:00 UTC.
    const sunday = zonedTimeToEpoch('Europe/London', 2026, 3, 29, 12);
    expect(new Date(nextWindowStart(weekdays, sunday, 'Europe/London')).toISOString()).toBe(
      '2026-03-30T08:00:00.000Z',
    );
  });

  it('keeps a window across midnight open after midnight, for the day it started', () => {
    const night = { days: ['fri'] as const, fromMinutes: 22 * 60, toMinutes: 6 * 60 };
    const saturdayEarly = zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 21, 3);
    const saturdayLate = zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 21, 23);
    expect(isActive(night, saturdayEarly, 'Asia/Kolkata')).toBe(true);
    expect(isActive(night, saturdayLate, 'Asia/Kolkata')).toBe(false);
  });
});

describe('Function: decide, a flood', () => {
  // Each step below handles 50,000 to 150,000 events: about a second alone, many times that on
  // a busy 2-core machine. A limit to catch a hang, not a judgement of speed (the bench times it).
  const FLOOD_TIMEOUT_MS = 60_000;
  // Active from 09:00 to 18:00 every day: T0 (10:00 IST) is inside, 20:00 is not.
  const nightly = config([], {
    channels: {
      oncall: {
        ...CONFIG.channels.oncall,
        name: 'oncall',
        sms: [],
        email: ['oncall@example.com'],
        group: { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE },
        smsPerHour: 20,
        active: {
          days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
          fromMinutes: 9 * 60,
          toMinutes: 18 * 60,
        },
      },
    },
  });

  it(
    'defers 150,000 events outside active hours at once',
    () => {
      const night = T0 + 10 * 60 * MINUTE;
      const flood = Array.from({ length: 150_000 }, (_, i) => event(`c${i}`, night));
      const deferred = decide(nightly, undefined, flood, night);
      expect(deferred.messages).toEqual([]);
      expect(deferred.state?.channels.oncall?.deferred).toHaveLength(150_000);
    },
    FLOOD_TIMEOUT_MS,
  );

  it(
    'tells 100,000 events of one group in one step (a backlog after an outage), each exactly once',
    () => {
      const backlog = Array.from({ length: 100_000 }, (_, i) => event(`c${i}`, T0));
      const decided = decide(CONFIG, undefined, backlog, T0);
      const told = decided.messages.flatMap((outbound) => outbound.delivers);
      expect(told).toHaveLength(100_000);
      expect(new Set(told).size).toBe(100_000);
      expect(decided.messages.every((outbound) => outbound.message.kind === 'alerts')).toBe(true);
    },
    FLOOD_TIMEOUT_MS,
  );

  it(
    'tells a night of 50,000 deferred events in the morning digest, each exactly once',
    () => {
      const night = T0 + 10 * 60 * MINUTE;
      const flood = Array.from({ length: 50_000 }, (_, i) => event(`c${i}`, night));
      const deferred = decide(nightly, undefined, flood, night);
      const morning = decide(nightly, deferred.state, [], deferred.nextDueAtMs ?? night);
      const told = morning.messages.flatMap((outbound) => outbound.delivers);
      expect(morning.messages.every((outbound) => outbound.message.kind === 'digest')).toBe(true);
      expect(told).toHaveLength(50_000);
      expect(new Set(told).size).toBe(50_000);
      expect(morning.state?.channels.oncall?.deferred ?? []).toEqual([]);
    },
    FLOOD_TIMEOUT_MS,
  );
});
