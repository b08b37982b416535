import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../shared/api/types';
import { evaluate } from '../../shared/engine/evaluate';
import {
  HOLD_FIRING_MS,
  heldWindows,
  MAX_HELD_WINDOW_MS,
  MAX_HELD_WINDOWS,
} from '../../shared/engine/held';
import { planRequests } from '../../shared/engine/plan';
import type { SourceState } from '../../shared/engine/types';
import { MemoryPublisher, MemoryStateStore } from '../../shared/ports/memory';
import { RecordBatch } from '../../shared/records/batch';
import type { ApiRecord, ParsedBatch, PollResult } from '../../shared/records/types';
import { runSource } from '../../shared/runner/run';
import type { Config } from '../../shared/types/config';
import { config, MINUTE, payment, T0 } from './fixtures';

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SECOND = 1000;

/** Pending payments fire (lookback: the default 24h). */
function stuck(overrides: { resolved?: boolean } = {}): Config {
  return config([
    { name: 'stuck', source: 'payments', where: { status: 'pending' }, ...overrides },
  ]);
}

function ok(...records: ApiRecord[]): PollResult {
  return { ok: true, records: RecordBatch.of(records), skipped: 0 };
}

/** `p1`, pending, made at T0 (so past the 24h lookback from T0 + 1 day on). */
const P1 = payment('p1', {}, T0);
const P1_SETTLED = payment('p1', { status: 'success' }, T0);

/** The state after `p1` fired at T0, and `hours` later polls (each at T0 + n hours) without it. */
function firingThenAbsent(cfg: Config, hours: number) {
  let { state } = evaluate(cfg, 'payments', ok(P1), T0);
  const told: string[] = [];
  for (let hour = 1; hour <= hours; hour += 1) {
    const result = evaluate(cfg, 'payments', ok(), T0 + hour * HOUR, state);
    state = result.state;
    for (const n of result.notifications) {
      told.push(`${hour}h ${n.status}${n.untold ? ' (untold)' : ''} ${n.key}`);
    }
  }
  return { state, told };
}

describe('Function: evaluate, a firing payment older than the lookback', () => {
  it('stays firing while absent, and resolves when it is seen settled days later', () => {
    const cfg = stuck();
    const { state, told } = firingThenAbsent(cfg, 30);
    expect(told).toEqual([]);
    expect(state.alerts['stuck{id=p1}']?.state).toBe('firing');
    // Its own window (planRequests) brings it back, settled, two days after it was made.
    const later = evaluate(cfg, 'payments', ok(P1_SETTLED), T0 + 2 * DAY, state);
    expect(later.notifications.map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved stuck{id=p1}',
    ]);
    expect(later.notifications[0]?.sms).toContain('no longer matches');
  });

  it('keeps it firing when it is seen still pending past the lookback, without re-firing', () => {
    const cfg = stuck();
    const { state } = firingThenAbsent(cfg, 30);
    const later = evaluate(cfg, 'payments', ok(P1), T0 + 2 * DAY, state);
    expect(later.notifications).toEqual([]);
    expect(later.state.alerts['stuck{id=p1}']?.lastSeenAt).toBe(T0 + 2 * DAY);
  });

  it('resolves it once keepFiring has passed after it was seen settled past the lookback', () => {
    const cfg = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending' }, keepFiringMs: 5 * MINUTE },
    ]);
    const { state } = firingThenAbsent(cfg, 30);
    const settled = evaluate(cfg, 'payments', ok(P1_SETTLED), T0 + 2 * DAY, state);
    expect(settled.notifications).toEqual([]);
    const passed = evaluate(cfg, 'payments', ok(), T0 + 2 * DAY + 10 * MINUTE, settled.state);
    expect(passed.notifications.map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved stuck{id=p1}',
    ]);
  });

  it('tells it is no longer tracked, as a resolution with its reason, past the hold', () => {
    const cfg = stuck();
    const { state } = firingThenAbsent(cfg, 30);
    const past = evaluate(cfg, 'payments', ok(), T0 + HOLD_FIRING_MS + MINUTE, state);
    expect(past.notifications.map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved stuck{id=p1}',
    ]);
    expect(past.notifications[0]?.sms).toContain(
      'RESOLVED stuck: no longer tracked (made 7d 1m ago, followed 7d)',
    );
    expect(past.notifications[0]?.text).toContain('no longer tracked');
    expect(past.state.alerts).toEqual({});
  });

  it('forgets a firing payment of a rule that tells no resolutions at the lookback, untold', () => {
    const cfg = stuck({ resolved: false });
    const { state, told } = firingThenAbsent(cfg, 25);
    // Only the notifier's cue that the firing is over (it tells a still-held firing resolved).
    expect(told).toEqual(['25h resolved (untold) stuck{id=p1}']);
    expect(state.alerts).toEqual({});
    expect(heldWindows(cfg, firingThenAbsent(cfg, 23).state, T0 + 25 * HOUR)).toEqual([]);
  });

  it("does not count a held payment's window in an aggregate over the lookback", () => {
    const cfg = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending' } },
      { name: 'many', source: 'payments', where: { status: 'pending' }, count: '> 0' },
    ]);
    const { state } = firingThenAbsent(cfg, 30);
    // p1 (two days old, fetched by its own window) is pending; nothing in the lookback is.
    const later = evaluate(cfg, 'payments', ok(P1), T0 + 2 * DAY, state);
    expect(later.state.alerts.many).toBeUndefined();
    expect(later.notifications).toEqual([]);
  });
});

describe('Function: planRequests, firing payments held past the lookback', () => {
  it('asks a window around each held payment beside the lookback window', () => {
    const cfg = stuck();
    const { state } = firingThenAbsent(cfg, 30);
    const now = T0 + 30 * HOUR;
    expect(planRequests(cfg, 'payments', now, state)).toEqual([
      {
        endpoint: 'payments',
        query: { from_date: '2026-11-21 16:00:00', to_date: '2026-11-22 16:00:00' },
      },
      {
        endpoint: 'payments',
        query: { from_date: '2026-11-21 09:59:59', to_date: '2026-11-21 10:00:01' },
      },
    ]);
  });

  it('shares a window among payments made within an hour, at most four, least recently seen first', () => {
    const cfg = stuck();
    // Six firing payments, made two days before `now`: two within minutes of each other, the
    // others hours apart; p5 and p6 were seen most recently.
    const made = [0, 10 * MINUTE, 3 * HOUR, 6 * HOUR, 9 * HOUR, 12 * HOUR];
    const now = T0 + 3 * DAY;
    let state: SourceState | undefined;
    made.forEach((offset, i) => {
      const seenAt = T0 + 2 * DAY + i * MINUTE;
      const poll = ok(payment(`p${i + 1}`, {}, T0 + offset));
      // Seen once while inside a 3-day lookback, so it fires; then the lookback is 24h again.
      const wide: Config = {
        ...cfg,
        sources: { ...cfg.sources, payments: { everyMs: 5 * MINUTE, lookbackMs: 3 * DAY } },
      };
      state = evaluate(wide, 'payments', poll, seenAt, state).state;
    });
    const windows = heldWindows(cfg, state, now);
    expect(windows).toHaveLength(MAX_HELD_WINDOWS);
    expect(windows).toEqual([
      { fromMs: T0 - SECOND, toMs: T0 + 10 * MINUTE + SECOND },
      { fromMs: T0 + 3 * HOUR - SECOND, toMs: T0 + 3 * HOUR + SECOND },
      { fromMs: T0 + 6 * HOUR - SECOND, toMs: T0 + 6 * HOUR + SECOND },
      { fromMs: T0 + 9 * HOUR - SECOND, toMs: T0 + 9 * HOUR + SECOND },
    ]);
    for (const w of windows) expect(w.toMs - w.fromMs).toBeLessThanOrEqual(MAX_HELD_WINDOW_MS);
  });

  it('asks nothing more once the held payment is past the hold', () => {
    const cfg = stuck();
    const { state } = firingThenAbsent(cfg, 30);
    expect(planRequests(cfg, 'payments', T0 + HOLD_FIRING_MS + MINUTE, state)).toHaveLength(1);
  });
});

describe('Function: runSource, a held payment', () => {
  it("fetches the held payment's window and sends its resolution when it settles", async () => {
    const cfg = stuck();
    const { state } = firingThenAbsent(cfg, 30);
    const nowMs = T0 + 2 * DAY;
    const store = new MemoryStateStore({ now: () => nowMs });
    await store.commit('payments', 0, state, []);
    const asked: ApiRequest[] = [];
    const client = {
      async request(request: ApiRequest): Promise<ParsedBatch> {
        asked.push(request);
        // The API answers by date: p1 is only in the window around its created_at.
        const query = request.endpoint === 'payments' ? request.query : {};
        const records = query.from_date === '2026-11-21 09:59:59' ? [P1_SETTLED] : [];
        return { records: RecordBatch.of(records), skipped: 0, skipReasons: [] };
      },
    };
    const publisher = new MemoryPublisher();
    await runSource({
      config: cfg,
      source: 'payments',
      client,
      store,
      publisher,
      now: () => nowMs,
      sleep: async () => {},
      deadlineMs: nowMs + 5 * MINUTE,
    });
    expect(asked).toHaveLength(2);
    expect(publisher.published.map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved stuck{id=p1}',
    ]);
  });
});
