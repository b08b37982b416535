import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/engine/evaluate';
import { MAX_ALERTS_PER_SOURCE, ruleLimit, TOO_MANY_ALERTS } from '../../shared/engine/limit';
import type { Notification, SourceState } from '../../shared/engine/types';
import { MemoryPublisher } from '../../shared/ports/memory';
import { RecordBatch } from '../../shared/records/batch';
import type { ApiRecord, PollResult } from '../../shared/records/types';
import { replayTimeline } from '../../shared/timeline/replay';
import type { Config } from '../../shared/types/config';
import { call, config, MINUTE, payment, T0 } from './fixtures';

/** More than a call takes arguments: spreading this many into a call overflows the stack. */
const FLOOD = 150_000;

/** `count` pending payments `p0000000`, `p0000001`, ... made a minute before T0. */
function payments(count: number, fields: Record<string, string> = {}): ApiRecord[] {
  return Array.from({ length: count }, (_, i) =>
    payment(`p${String(i).padStart(7, '0')}`, fields, T0 - MINUTE),
  );
}

function poll(records: readonly ApiRecord[]): PollResult {
  return { ok: true, records: RecordBatch.of(records), skipped: 0 };
}

/** Every pending payment fires, one alert per payment. */
function everyPending(extra: Config['rules'] = []): Config {
  const cfg = config([
    { name: 'pending', source: 'payments', where: { status: 'pending' }, severity: 'info' },
  ]);
  return { ...cfg, rules: [...cfg.rules, ...extra] };
}

function limitAlerts(notifications: readonly Notification[]): Notification[] {
  return notifications.filter((n) => n.rule === TOO_MANY_ALERTS);
}

function tracked(state: SourceState, rule: string): string[] {
  return Object.values(state.alerts)
    .filter((instance) => instance.rule === rule)
    .map((instance) => instance.labels.id ?? '');
}

describe('Function: evaluate, a rule matching more than it may track', () => {
  it('evaluates 150,000 matching payments at once without overflowing the call stack', () => {
    const cfg = everyPending();
    const limit = ruleLimit(cfg, 'payments');
    const { state, notifications } = evaluate(cfg, 'payments', poll(payments(FLOOD)), T0);
    expect(limit).toBe(MAX_ALERTS_PER_SOURCE);
    expect(tracked(state, 'pending')).toHaveLength(limit);
    expect(notifications).toHaveLength(limit + 1);
    const [alert] = limitAlerts(notifications);
    expect(alert).toMatchObject({
      status: 'firing',
      key: 'too_many_alerts{rule=pending}',
      labels: { rule: 'pending' },
    });
    expect(alert?.sms).toContain(`${FLOOD - limit} payments not tracked (limit ${limit})`);
  });

  it('replays a timeline whose one poll owes 150,000 notifications', () => {
    const cfg = everyPending();
    const notifications = replayTimeline(cfg, [
      { atMs: T0, source: 'payments', poll: poll(payments(FLOOD)) },
    ]);
    expect(notifications).toHaveLength(ruleLimit(cfg, 'payments') + 1);
  });

  it('tracks the first instances in key order and tells how many were left out, with examples', () => {
    const cfg = everyPending();
    const limit = ruleLimit(cfg, 'payments');
    const { state, notifications } = evaluate(cfg, 'payments', poll(payments(limit + 7)), T0);
    const ids = tracked(state, 'pending');
    expect(ids[0]).toBe('p0000000');
    expect(ids.at(-1)).toBe(`p${String(limit - 1).padStart(7, '0')}`);
    const [alert] = limitAlerts(notifications);
    expect(alert?.text).toContain('untracked: 7');
    expect(alert?.text).toContain(`examples:  id=p${String(limit).padStart(7, '0')}`);
    // After the rule's own notifications, as a rule's notifications come.
    expect(notifications.at(-1)).toBe(alert);
  });

  it('tracks the same instances and examples whatever order the answer lists them in', () => {
    const cfg = everyPending();
    const limit = ruleLimit(cfg, 'payments');
    const records = payments(limit + 40);
    // Reversed, then the two halves swapped: the first keys in key order come last.
    const reversed = [...records].reverse();
    const shuffled = [...reversed.slice(limit / 2), ...reversed.slice(0, limit / 2)];
    const ordered = evaluate(cfg, 'payments', poll(records), T0);
    for (const order of [reversed, shuffled]) {
      const { state, notifications } = evaluate(cfg, 'payments', poll(order), T0);
      expect(state).toEqual(ordered.state);
      expect(notifications).toEqual(ordered.notifications);
    }
    const [alert] = limitAlerts(ordered.notifications);
    expect(alert?.text).toContain('untracked: 40');
    // A later evaluation, with half the slots taken, starts the first of the rest in key order.
    const half = Object.fromEntries(
      Object.entries(ordered.state.alerts).filter(
        ([, instance]) => Number(instance.labels.id?.slice(1)) % 2 === 0,
      ),
    );
    const next = evaluate(cfg, 'payments', poll(shuffled), T0 + MINUTE, {
      ...ordered.state,
      alerts: half,
    });
    const started = next.notifications.filter((n) => n.rule === 'pending').map((n) => n.key);
    expect(started).toHaveLength(limit / 2);
    expect(started[0]).toBe('pending{id=p0000001}');
    expect(started.at(-1)).toBe(`pending{id=p${String(limit - 1).padStart(7, '0')}}`);
    expect(next.state.alerts['too_many_alerts{rule=pending}']?.context.untracked).toBe('40');
  });

  it('goes to the rule channels and health.notify, at least at warning', () => {
    const base = everyPending();
    const cfg: Config = { ...base, health: { after: 3, notify: ['finance'] } };
    const { notifications } = evaluate(
      cfg,
      'payments',
      poll(payments(ruleLimit(cfg, 'payments') + 1)),
      T0,
    );
    const [alert] = limitAlerts(notifications);
    // The rule is info; a channel with minSeverity warning must still hear of lost alerts.
    expect(alert).toMatchObject({ severity: 'warning', channels: ['oncall', 'finance'] });
    expect(alert?.sms.length).toBeLessThanOrEqual(160);
    expect(alert?.subject.length).toBeLessThan(100);
  });

  it('fires once while matches stay untracked, then starts them as tracked ones resolve', () => {
    const cfg = everyPending();
    const limit = ruleLimit(cfg, 'payments');
    const records = payments(limit + 2);
    const first = evaluate(cfg, 'payments', poll(records), T0);
    const again = evaluate(cfg, 'payments', poll(records), T0 + MINUTE, first.state);
    expect(again.notifications).toEqual([]);
    expect(again.state.alerts['too_many_alerts{rule=pending}']?.context.untracked).toBe('2');

    // Three tracked payments settle: they resolve now, and their slots take the two left out
    // at the next evaluation, which resolves too_many_alerts.
    const settled = records.map((record, i) =>
      i < 3 ? payment(record.key, { status: 'success' }, T0 - MINUTE) : record,
    );
    const freed = evaluate(cfg, 'payments', poll(settled), T0 + 2 * MINUTE, again.state);
    expect(freed.notifications.map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved pending{id=p0000000}',
      'resolved pending{id=p0000001}',
      'resolved pending{id=p0000002}',
    ]);
    const admitted = evaluate(cfg, 'payments', poll(settled), T0 + 3 * MINUTE, freed.state);
    expect(admitted.notifications.map((n) => `${n.status} ${n.key}`)).toEqual([
      `firing pending{id=p${String(limit).padStart(7, '0')}}`,
      `firing pending{id=p${String(limit + 1).padStart(7, '0')}}`,
      'resolved too_many_alerts{rule=pending}',
    ]);
    expect(limitAlerts(admitted.notifications)[0]?.sms).toBe(
      'RESOLVED too_many_alerts: rule pending: every match tracked again; warning',
    );
  });

  it("shares a source's limit evenly between its rules, each overflowing on its own", () => {
    const cfg = config([
      { name: 'pending', source: 'payments', where: { status: 'pending' } },
      { name: 'small', source: 'payments', where: { amount_paid: '< 1000' } },
      { name: 'ringing', source: 'live_calls', where: { state: 'Ringing' } },
    ]);
    const limit = ruleLimit(cfg, 'payments');
    expect(limit).toBe(MAX_ALERTS_PER_SOURCE / 2);
    expect(ruleLimit(cfg, 'live_calls')).toBe(MAX_ALERTS_PER_SOURCE);
    const { state, notifications } = evaluate(cfg, 'payments', poll(payments(limit + 1)), T0);
    expect(tracked(state, 'pending')).toHaveLength(limit);
    expect(tracked(state, 'small')).toHaveLength(limit);
    expect(limitAlerts(notifications).map((n) => n.key)).toEqual([
      'too_many_alerts{rule=pending}',
      'too_many_alerts{rule=small}',
    ]);
  });

  it('is told resolved once, saying why, where it went, when a deploy removes its rule', () => {
    const failed = { name: 'failed', source: 'payments' as const, where: { status: 'failed' } };
    const base = everyPending(config([failed]).rules);
    const cfg: Config = { ...base, health: { after: 3, notify: ['finance'] } };
    const records = payments(ruleLimit(cfg, 'payments') + 1);
    const first = evaluate(cfg, 'payments', poll(records), T0);
    expect(limitAlerts(first.notifications).map((n) => n.status)).toEqual(['firing']);

    const removed: Config = { ...cfg, rules: cfg.rules.filter((rule) => rule.name !== 'pending') };
    const after = evaluate(removed, 'payments', poll(records), T0 + MINUTE, first.state);
    const [alert] = limitAlerts(after.notifications);
    expect(alert).toMatchObject({
      status: 'resolved',
      key: 'too_many_alerts{rule=pending}',
      severity: 'warning',
      channels: ['oncall', 'finance'],
    });
    expect(alert?.sms).toBe(
      'RESOLVED too_many_alerts: rule pending: rule removed from the rules file; warning',
    );
    expect(alert?.text).toContain('rule removed from the rules file');
    expect(after.state.alerts['too_many_alerts{rule=pending}']).toBeUndefined();
    const later = evaluate(removed, 'payments', poll(records), T0 + 2 * MINUTE, after.state);
    expect(limitAlerts(later.notifications)).toEqual([]);
  });

  it("is told resolved to the rule's channels when every alert of the rule was pending", () => {
    const slow = { name: 'slow', source: 'payments' as const, where: { status: 'pending' } };
    const base = config([{ ...slow, forMs: 60 * MINUTE, severity: 'critical' as const }]);
    const cfg: Config = { ...base, health: { after: 3, notify: ['finance'] } };
    const records = payments(ruleLimit(cfg, 'payments') + 1);
    const first = evaluate(cfg, 'payments', poll(records), T0);
    expect(limitAlerts(first.notifications).map((n) => n.channels)).toEqual([
      ['oncall', 'finance'],
    ]);
    const removed: Config = { ...cfg, rules: [] };
    const after = evaluate(removed, 'payments', poll(records), T0 + MINUTE, first.state);
    expect(limitAlerts(after.notifications).map((n) => [n.status, n.channels, n.severity])).toEqual(
      [['resolved', ['oncall', 'finance'], 'critical']],
    );
  });

  it('is told resolved when the removed rule was the last that read its source', () => {
    const ringing = { name: 'ringing', where: { state: 'Ringing' } };
    const cfg = everyPending(config([ringing]).rules);
    const records = payments(ruleLimit(cfg, 'payments') + 1);
    const first = evaluate(cfg, 'payments', poll(records), T0);
    const removed: Config = { ...cfg, rules: cfg.rules.filter((rule) => rule.name !== 'pending') };
    const after = evaluate(removed, 'payments', poll(records), T0 + MINUTE, first.state);
    expect(limitAlerts(after.notifications).map((n) => `${n.status} ${n.key}`)).toEqual([
      'resolved too_many_alerts{rule=pending}',
    ]);
    expect(after.state.alerts).toEqual({});
  });

  it('limits the groups of an aggregate rule as it limits records', () => {
    const cfg = config([
      { name: 'per-did', where: { state: 'Ringing' }, count: '> 0', groupBy: ['did'] },
    ]);
    const limit = ruleLimit(cfg, 'live_calls');
    const calls = Array.from({ length: limit + 3 }, (_, i) =>
      call(`c${i}`, { did: `+9180${String(i).padStart(8, '0')}` }),
    );
    const { state, notifications } = evaluate(cfg, 'live_calls', poll(calls), T0);
    expect(Object.values(state.alerts).filter((a) => a.rule === 'per-did')).toHaveLength(limit);
    const [alert] = limitAlerts(notifications);
    expect(alert?.sms).toContain('3 groups not tracked');
  });
});

describe('Class: MemoryPublisher', () => {
  it('takes 150,000 notifications in one publish', async () => {
    const cfg = everyPending();
    const one = evaluate(cfg, 'payments', poll(payments(1)), T0).notifications[0] as Notification;
    const publisher = new MemoryPublisher();
    const outcome = await publisher.publish(Array.from({ length: FLOOD }, () => one));
    expect(publisher.published).toHaveLength(FLOOD);
    expect(outcome.delivered).toHaveLength(FLOOD);
  });
});
