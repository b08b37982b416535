import { describe, expect, it } from 'vitest';
import { IncompatibleStateError } from '../../shared/engine/errors';
import { evaluate } from '../../shared/engine/evaluate';
import type { Notification, SourceState } from '../../shared/engine/types';
import { readBatch } from '../../shared/records/parse';
import type { PollResult } from '../../shared/records/types';
import type { Config, SourceName } from '../../shared/types/config';
import { call, config, failed, MINUTE, ok, payment, T0, ZONE } from './fixtures';

type Step = readonly [minute: number, poll: PollResult];

/** Runs polls of one source at T0 + minute and returns `minute status key` lines. */
function run(cfg: Config, steps: readonly Step[], source: SourceName = 'live_calls') {
  let state: SourceState | undefined;
  const seen: string[] = [];
  const all: Notification[] = [];
  for (const [minute, poll] of steps) {
    const result = evaluate(cfg, source, poll, T0 + minute * MINUTE, state);
    state = result.state;
    for (const n of result.notifications) seen.push(`${minute} ${n.status} ${n.key}`);
    for (const notification of result.notifications) all.push(notification);
  }
  return { seen, state, all };
}

/** Payments pending fire per payment, held five minutes by keepFiring. */
function heldForFiveMinutes(): Config {
  return config([
    { name: 'stuck', source: 'payments', where: { status: 'pending' }, keepFiringMs: 5 * MINUTE },
  ]);
}

describe('Function: evaluate', () => {
  it('fires once the condition held for the whole for-duration', () => {
    const cfg = config([{ name: 'long', where: { state: 'Ringing' }, forMs: 2 * MINUTE }]);
    const { seen } = run(cfg, [
      [0, ok(call('a'))],
      [1, ok(call('a'))],
      [2, ok(call('a'))],
      [3, ok(call('a'))],
    ]);
    expect(seen).toEqual(['2 firing long{call_id=a}']);
  });

  it('drops a pending instance silently when the condition stops holding', () => {
    const cfg = config([{ name: 'long', where: { state: 'Ringing' }, forMs: 2 * MINUTE }]);
    const { seen, state } = run(cfg, [
      [0, ok(call('a'))],
      [1, ok(call('a', { state: 'Answered' }))],
      [2, ok(call('a'))],
      [3, ok(call('a'))],
    ]);
    expect(seen).toEqual([]);
    expect(state?.alerts['long{call_id=a}']?.activeAt).toBe(T0 + 2 * MINUTE);
  });

  it('repeats at the first evaluation where the repeat interval has passed', () => {
    const cfg = config([{ name: 'r', where: {}, repeatMs: 5 * MINUTE }]);
    const steps: Step[] = [0, 3, 6, 9, 12].map((m) => [m, ok(call('a'))]);
    expect(run(cfg, steps).seen).toEqual([
      '0 firing r{call_id=a}',
      '6 firing r{call_id=a}',
      '12 firing r{call_id=a}',
    ]);
  });

  it('keeps firing through a flap shorter than keepFiring, then resolves', () => {
    const cfg = config([{ name: 'k', where: { state: 'Ringing' }, keepFiringMs: 2 * MINUTE }]);
    const { seen } = run(cfg, [
      [0, ok(call('a'))],
      [1, ok()],
      [2, ok(call('a'))],
      [3, ok()],
      [4, ok()],
      [5, ok()],
    ]);
    expect(seen).toEqual(['0 firing k{call_id=a}', '5 resolved k{call_id=a}']);
  });

  it('tells a resolution of a rule that says resolved: false only as untold, for the notifier', () => {
    const cfg = config([{ name: 'q', where: {}, resolved: false }]);
    const { seen, state, all } = run(cfg, [
      [0, ok(call('a'))],
      [1, ok()],
    ]);
    expect(seen).toEqual(['0 firing q{call_id=a}', '1 resolved q{call_id=a}']);
    expect(all.map((n) => n.untold)).toEqual([undefined, true]);
    expect(all[1]?.firedAt).toBe(new Date(T0).toISOString());
    expect(state?.alerts).toEqual({});
  });

  it('marks no resolution untold when the rule tells its resolutions', () => {
    const cfg = config([{ name: 'q', where: {} }]);
    const { all } = run(cfg, [
      [0, ok(call('a'))],
      [1, ok()],
    ]);
    expect(all.map((n) => [n.status, n.untold])).toEqual([
      ['firing', undefined],
      ['resolved', undefined],
    ]);
  });

  it('counts distinct call ids per group and keys instances by groupBy labels', () => {
    const cfg = config([
      { name: 'busy', where: { state: 'Ringing' }, count: '>= 2', groupBy: ['did'] },
    ]);
    const did1 = { did: '+918000000001' };
    const did2 = { did: '+918000000002' };
    const { all } = run(cfg, [
      [0, ok(call('a', did1), call('a', did1), call('b', did1), call('c', did2), call('c', did2))],
    ]);
    expect(all.map((n) => [n.key, n.value, n.labels])).toEqual([
      ['busy{did=+918000000001}', 2, did1],
    ]);
  });

  it('keys two groups apart when a label value holds the separators of the key', () => {
    const cfg = config([{ name: 'g', where: {}, count: '>= 1', groupBy: ['agent_name', 'type'] }]);
    const first = { agent_name: 'x,type=y', type: 'z' };
    const second = { agent_name: 'x', type: 'y,type=z' };
    const { all } = run(cfg, [[0, ok(call('a', first), call('b', second))]]);
    expect(all.map((n) => [n.key, n.value, n.labels])).toEqual([
      ['g{agent_name=x,type=y\\,type=z}', 1, second],
      ['g{agent_name=x\\,type=y,type=z}', 1, first],
    ]);
  });

  it('keeps keys, state and messages small whatever the length of the API values', () => {
    const cfg = config([
      { name: 'ringing', where: { state: 'Ringing' } },
      { name: 'agents', where: {}, count: '>= 1', groupBy: ['agent_name'] },
    ]);
    const huge = 'Q'.repeat(200_000);
    const rows = [
      { call_id: `c-${huge}`, state: 'Ringing', agent_name: huge, note: `${huge}\nStatus: fake` },
      { call_id: `c-${huge}x`, state: 'Ringing', agent_name: huge.toLowerCase() },
    ];
    const { records } = readBatch('live_calls', rows, ZONE);
    const { all, state } = run(cfg, [[0, { ok: true, records, skipped: 0 }]]);
    // Two calls (their ids differ at the end), one agent group (text groups case-insensitively).
    expect(all.map((n) => [n.rule, n.value])).toEqual([
      ['ringing', undefined],
      ['ringing', undefined],
      ['agents', 2],
    ]);
    for (const n of all) {
      expect(JSON.stringify(n).length).toBeLessThan(10_000);
      expect(n.text).not.toContain('\nStatus: fake');
    }
    expect(JSON.stringify(state).length).toBeLessThan(10_000);
  });

  it('evaluates an ungrouped count even when nothing matches', () => {
    const cfg = config([{ name: 'quiet', where: {}, count: '< 1' }]);
    const { all } = run(cfg, [[0, ok()]]);
    expect(all.map((n) => [n.key, n.value, n.labels])).toEqual([['quiet', 0, {}]]);
  });

  it('freezes rule state during an outage and fires source_unavailable once', () => {
    const cfg = config([{ name: 'r', where: {} }]);
    const { seen, all } = run(cfg, [
      [0, ok(call('a'))],
      [1, failed()],
      [2, failed()],
      [3, failed()],
      [4, failed()],
      [5, ok(call('b'))],
    ]);
    expect(seen).toEqual([
      '0 firing r{call_id=a}',
      '3 firing source_unavailable{source=live_calls}',
      '5 resolved source_unavailable{source=live_calls}',
      '5 resolved r{call_id=a}',
      '5 firing r{call_id=b}',
    ]);
    const outage = all[1];
    expect(outage).toMatchObject({
      severity: 'critical',
      labels: { source: 'live_calls' },
      channels: ['oncall'],
    });
  });

  it('keeps an absent payment untouched and resolves it when it reappears paid', () => {
    const cfg = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending', age: '> 30m' } },
    ]);
    const p = (status: string) => payment('p1', { status }, T0);
    const { seen } = run(
      cfg,
      [
        [10, ok(p('pending'))],
        [35, ok(p('pending'))],
        [40, ok()],
        [45, ok(p('success'))],
      ],
      'payments',
    );
    expect(seen).toEqual(['35 firing stuck{id=p1}', '45 resolved stuck{id=p1}']);
  });

  it('resolves an absent payment last seen paid once keepFiring has passed', () => {
    const cfg = heldForFiveMinutes();
    const p = (status: string) => payment('p1', { status }, T0);
    const { seen } = run(
      cfg,
      [
        [0, ok(p('pending'))],
        [2, ok(p('success'))],
        [4, ok()],
        [10, ok()],
        [20, ok()],
      ],
      'payments',
    );
    expect(seen).toEqual(['0 firing stuck{id=p1}', '10 resolved stuck{id=p1}']);
  });

  it('tells the record last seen when a payment held by keepFiring resolves while absent', () => {
    const cfg = heldForFiveMinutes();
    const p = (status: string) => payment('p1', { status, amount_paid: '2500' }, T0);
    const { seen, all, state } = run(
      cfg,
      [
        [0, ok(p('pending'))],
        [2, ok(p('success'))],
        [10, ok()],
      ],
      'payments',
    );
    expect(seen).toEqual(['0 firing stuck{id=p1}', '10 resolved stuck{id=p1}']);
    const resolved = all.find((n) => n.status === 'resolved');
    expect(resolved?.text).toMatch(/amount_paid: +2500\.00/);
    expect(resolved?.text).toMatch(/status: +success/);
    expect(state?.alerts).toEqual({});
  });

  it('keeps a payment without created_at that reappears after the lookback, and resolves it', () => {
    const hour = 60 * MINUTE;
    const cfg = config([{ name: 'stuck', source: 'payments', where: { status: 'pending' } }], {
      sources: {
        live_calls: { everyMs: MINUTE, samples: 1, query: {} },
        payments: { everyMs: 5 * MINUTE, lookbackMs: hour },
      },
    });
    const p = (status: string) => payment('p1', { status });
    const { seen } = run(
      cfg,
      [
        [0, ok(p('pending'))],
        [50, ok(p('pending'))],
        [100, ok()],
        [115, ok(p('success'))],
      ],
      'payments',
    );
    expect(seen).toEqual(['0 firing stuck{id=p1}', '115 resolved stuck{id=p1}']);
  });

  it('stores a firing payment without its record and tells the payment as seen when notifying', () => {
    const cfg = config([
      {
        name: 'stuck',
        source: 'payments',
        where: { status: 'pending' },
        repeatMs: 10 * MINUTE,
        forMs: MINUTE,
      },
    ]);
    const p = (amount: string, status = 'pending') =>
      payment('p1', { status, amount_paid: amount }, T0);
    const { all, state } = run(
      cfg,
      [
        [0, ok(p('100'))],
        [1, ok(p('150'))],
        [5, ok(p('175'))],
        [11, ok(p('200'))],
        [12, ok(p('250', 'success'))],
      ],
      'payments',
    );
    expect(all.map((n) => [n.status, /amount_paid:\s+(\S+)/.exec(n.text)?.[1]])).toEqual([
      ['firing', '150.00'],
      ['firing', '200.00'],
      ['resolved', '250.00'],
    ]);
    const middle = run(
      cfg,
      [
        [0, ok(p('100'))],
        [1, ok(p('150'))],
      ],
      'payments',
    ).state;
    expect(middle?.alerts['stuck{id=p1}']?.context).toEqual({});
    expect(state?.alerts).toEqual({});
  });

  it('counts a payment returned by several pushed-down requests once', () => {
    const cfg = config([
      { name: 'big', source: 'payments', where: { amount_paid: '> 10' } },
      { name: 'many', source: 'payments', where: { amount_paid: '> 10' }, count: '> 1' },
    ]);
    const twice = payment('p1', { amount_paid: '11' }, T0);
    const { seen } = run(cfg, [[0, ok(twice, twice)]], 'payments');
    expect(seen).toEqual(['0 firing big{id=p1}']);
  });

  it('forgets a payment instance of a rule without resolutions past the lookback, untold', () => {
    const cfg = config([
      { name: 'big', source: 'payments', where: { amount_paid: '> 10' }, resolved: false },
    ]);
    const { seen, state, all } = run(
      cfg,
      [
        [0, ok(payment('p1', { amount_paid: '11' }, T0))],
        [24 * 60 + 1, ok()],
      ],
      'payments',
    );
    expect(seen).toEqual(['0 firing big{id=p1}', '1441 resolved big{id=p1}']);
    expect(all.map((n) => n.untold)).toEqual([undefined, true]);
    expect(state?.alerts).toEqual({});
  });

  it("tells a removed rule's firing alerts resolved, saying why, as the file last had it", () => {
    const before = evaluate(
      config([{ name: 'old', where: {}, notify: ['finance'], severity: 'critical' }]),
      'live_calls',
      ok(call('a')),
      T0,
    );
    expect(before.state.rules).toEqual({
      old: { severity: 'critical', resolved: true, notified: [{ since: 0, notify: ['finance'] }] },
    });
    const after = evaluate(config([]), 'live_calls', ok(call('a')), T0 + MINUTE, before.state);
    expect(after.notifications).toHaveLength(1);
    expect(after.notifications[0]).toMatchObject({
      rule: 'old',
      status: 'resolved',
      key: 'old{call_id=a}',
      severity: 'critical',
      channels: ['finance'],
      firedAt: new Date(T0).toISOString(),
    });
    expect(after.notifications[0]?.sms).toContain('rule removed from the rules file');
    expect(after.notifications[0]?.text).toContain('no longer in the rules file');
    expect(after.state.alerts).toEqual({});
    expect(after.state.rules).toBeUndefined();
  });

  it("drops a removed rule's pending alerts, and ends its firing ones untold when it told no resolutions", () => {
    const cfg = config([
      { name: 'slow', where: {}, forMs: 5 * MINUTE },
      { name: 'quiet', where: {}, resolved: false },
    ]);
    const before = evaluate(cfg, 'live_calls', ok(call('a')), T0);
    expect(Object.keys(before.state.alerts)).toHaveLength(2);
    const after = evaluate(config([]), 'live_calls', ok(call('a')), T0 + MINUTE, before.state);
    expect(after.notifications.map((n) => [n.key, n.status, n.untold])).toEqual([
      ['quiet{call_id=a}', 'resolved', true],
    ]);
    expect(after.state.alerts).toEqual({});
  });

  it("ends the last rule of a source's firing alerts and its outage at its next poll, which asks nothing", () => {
    const health = { health: { after: 1, notify: ['oncall'] } };
    const read = config([{ name: 'old', where: {}, notify: ['finance'] }], health);
    const fired = evaluate(read, 'live_calls', ok(call('a')), T0);
    const down = evaluate(read, 'live_calls', failed(), T0 + MINUTE, fired.state);
    expect(Object.keys(down.state.alerts)).toEqual([
      'old{call_id=a}',
      'source_unavailable{source=live_calls}',
    ]);
    // No rule reads live_calls any more: whatever its poll says, nothing was asked of the API.
    const unread = config([{ name: 'pay', source: 'payments', where: {} }], health);
    for (const poll of [failed(), ok(call('a'), call('b'))]) {
      const after = evaluate(unread, 'live_calls', poll, T0 + 2 * MINUTE, down.state);
      // The outage's end first, as any outage's end comes.
      expect(after.notifications.map((n) => [n.key, n.status, n.channels])).toEqual([
        ['source_unavailable{source=live_calls}', 'resolved', ['oncall']],
        ['old{call_id=a}', 'resolved', ['finance']],
      ]);
      expect(after.notifications[0]?.sms).toContain(
        'live_calls: no rule reads the source any more',
      );
      expect(after.notifications[1]?.sms).toContain('rule removed from the rules file');
      expect(after.state).toEqual({
        version: down.state.version,
        source: 'live_calls',
        consecutiveFailures: 0,
        alerts: {},
      });
    }
  });

  it("tells a removed rule's alert to health.notify when the state did not remember the rule", () => {
    const before = evaluate(config([{ name: 'old', where: {} }]), 'live_calls', ok(call('a')), T0);
    const { rules: _rules, ...older } = before.state;
    const after = evaluate(config([]), 'live_calls', ok(), T0 + MINUTE, older);
    expect(after.notifications.map((n) => [n.key, n.status, n.channels, n.severity])).toEqual([
      ['old{call_id=a}', 'resolved', ['oncall'], 'warning'],
    ]);
  });

  it("names a resolution's channels its firing never went to (the rule's notify changed)", () => {
    const rules = (notify: string[]) => config([{ name: 'r', where: {}, notify }]);
    const fired = evaluate(rules(['oncall']), 'live_calls', ok(call('a')), T0);
    const still = evaluate(
      rules(['oncall', 'finance']),
      'live_calls',
      ok(call('a')),
      T0 + MINUTE,
      fired.state,
    );
    expect(still.state.rules?.r?.notified).toEqual([
      { since: 0, notify: ['oncall'] },
      { since: T0 + MINUTE, notify: ['oncall', 'finance'] },
    ]);
    const over = evaluate(
      rules(['oncall', 'finance']),
      'live_calls',
      ok(),
      T0 + 2 * MINUTE,
      still.state,
    );
    expect(over.notifications.map((n) => [n.status, n.channels, n.newTo])).toEqual([
      ['resolved', ['oncall', 'finance'], ['finance']],
    ]);
  });

  it('orders notifications by rule order in the config, then by key', () => {
    const cfg = config([
      { name: 'z-first', where: {} },
      { name: 'a-second', where: {} },
    ]);
    const { seen } = run(cfg, [[0, ok(call('b'), call('a'))]]);
    expect(seen).toEqual([
      '0 firing z-first{call_id=a}',
      '0 firing z-first{call_id=b}',
      '0 firing a-second{call_id=a}',
      '0 firing a-second{call_id=b}',
    ]);
  });

  it('gives each notification a deterministic id and the rule channels', () => {
    const cfg = config([{ name: 'r', where: {}, notify: ['finance'], severity: 'info' }]);
    const [n] = evaluate(cfg, 'live_calls', ok(call('a')), T0).notifications;
    expect(n).toMatchObject({
      id: 'r{call_id=a}|firing|2026-11-21T04:30:00.000Z',
      at: '2026-11-21T04:30:00.000Z',
      channels: ['finance'],
      severity: 'info',
      labels: { call_id: 'a' },
    });
    expect(n?.sms.length).toBeGreaterThan(0);
  });

  it('does not modify the previous state it is given', () => {
    const cfg = config([{ name: 'r', where: {}, forMs: MINUTE }]);
    const first = evaluate(cfg, 'live_calls', ok(call('a')), T0);
    const frozen = structuredClone(first.state);
    evaluate(cfg, 'live_calls', ok(), T0 + MINUTE, first.state);
    evaluate(cfg, 'live_calls', failed(), T0 + MINUTE, first.state);
    expect(first.state).toEqual(frozen);
  });

  it('refuses a stored state of another version or source', () => {
    const cfg = config([]);
    const state = evaluate(cfg, 'live_calls', ok(), T0).state;
    expect(() => evaluate(cfg, 'payments', ok(), T0, state)).toThrow(IncompatibleStateError);
    expect(() => evaluate(cfg, 'live_calls', ok(), T0, { ...state, version: 99 })).toThrow(
      /version 99/,
    );
  });
});
