import fc from 'fast-check';
import type { Notification } from '../../shared/engine/types';
import { type DecideOptions, decide } from '../../shared/notifier/decide';
import type { NotifierState, Outbound } from '../../shared/notifier/types';
import type { ChannelConfig, Config, Severity } from '../../shared/types/config';
import { config, MINUTE, T0 } from '../engine/fixtures';

/**
 * Random event streams through the notifier, for its properties: three channels with random
 * grouping, SMS caps and active hours, and steps of events of a few alerts at random times.
 */
export const HOUR = 60 * MINUTE;
const CHANNELS = ['oncall', 'finance', 'night'] as const;

export interface Step {
  readonly afterMs: number;
  readonly events: readonly {
    readonly rule: string;
    readonly key: string;
    readonly status: 'firing' | 'resolved';
    readonly severity: Severity;
    readonly channels: readonly string[];
    readonly label: string;
  }[];
}

const channelArb = (name: string) =>
  fc
    .record({
      sms: fc.boolean(),
      by: fc.subarray(['rule', 'severity', 'source', 'did'], { minLength: 1 }),
      waitMs: fc.constantFrom(0, 30_000, 2 * MINUTE),
      intervalMs: fc.constantFrom(0, MINUTE, 5 * MINUTE, 30 * MINUTE),
      smsPerHour: fc.integer({ min: 1, max: 6 }),
      active: fc.option(
        fc.record({
          days: fc.subarray(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const, {
            minLength: 1,
          }),
          fromMinutes: fc.integer({ min: 0, max: 23 }).map((hour) => hour * 60),
          toMinutes: fc.integer({ min: 1, max: 24 }).map((hour) => hour * 60),
        }),
        { nil: undefined },
      ),
    })
    .map(
      (c): ChannelConfig => ({
        name,
        sms: c.sms ? ['+919800000001'] : [],
        email: [`${name}@example.com`],
        group: { by: c.by, waitMs: c.waitMs, intervalMs: c.intervalMs },
        smsPerHour: c.smsPerHour,
        ...(c.active && c.active.fromMinutes !== c.active.toMinutes ? { active: c.active } : {}),
      }),
    );

export const configArb = fc
  .tuple(channelArb('oncall'), channelArb('finance'), channelArb('night'))
  .map(
    ([oncall, finance, night]): Config => ({ ...config([]), channels: { oncall, finance, night } }),
  );

/**
 * A step; `keys` are the alerts' identities (fewer keys: more events per alert), `repeats` how
 * many firing events a resolution comes with, on average (more: longer firings).
 */
export const stepArb = (keys: readonly string[] = ['a', 'b', 'c', 'd', 'e'], repeats = 1) =>
  fc.record({
    afterMs: fc.oneof(
      fc.integer({ min: 0, max: 2 * MINUTE }),
      fc.integer({ min: 0, max: 3 * HOUR }),
    ),
    events: fc.array(
      fc.record({
        rule: fc.constantFrom('ringing', 'stuck', 'spike'),
        key: fc.constantFrom(...keys),
        status: fc.constantFrom(
          ...Array.from({ length: repeats }, () => 'firing' as const),
          'resolved' as const,
        ),
        severity: fc.constantFrom('info' as const, 'warning' as const, 'critical' as const),
        channels: fc.subarray([...CHANNELS], { minLength: 1 }),
        label: fc.constantFrom('+918000000001', '+918000000002', 'श्री'),
      }),
      { maxLength: 6 },
    ),
  });

/** Drives `decide` as the local runner and the notifier Lambda do: events, then due ticks. */
export function drive(cfg: Config, steps: readonly Step[], options: DecideOptions = {}) {
  let state: NotifierState | undefined;
  let dueAt: number | undefined;
  let nowMs = T0;
  let serial = 0;
  const events: Notification[] = [];
  const outbound: Outbound[] = [];
  /** As the engine says: the firing each alert's events belong to, while it fires. */
  const firing = new Map<string, number>();
  const run = (batch: readonly Notification[], at: number) => {
    const decision = decide(cfg, state, batch, at, [], options);
    state = decision.state;
    dueAt = decision.nextDueAtMs;
    outbound.push(...decision.messages);
  };
  for (const step of steps) {
    const next = nowMs + step.afterMs;
    while (dueAt !== undefined && dueAt < next) run([], dueAt);
    nowMs = next;
    const batch = step.events.map((e): Notification => {
      serial += 1;
      const key = `${e.rule}{call_id=${e.key}}`;
      const firedAt = firing.get(key) ?? (e.status === 'firing' ? nowMs : undefined);
      if (e.status === 'firing') firing.set(key, firedAt ?? nowMs);
      else firing.delete(key);
      return {
        id: `${key}|${e.status}|${serial}`,
        at: new Date(nowMs).toISOString(),
        ...(firedAt === undefined ? {} : { firedAt: new Date(firedAt).toISOString() }),
        source: e.rule === 'stuck' ? 'payments' : 'live_calls',
        rule: e.rule,
        status: e.status,
        severity: e.severity,
        channels: e.channels,
        key,
        labels: { call_id: e.key, did: e.label },
        sms: `${e.status.toUpperCase()} ${e.rule}: call ${e.key} did ${e.label}`,
        subject: `[${e.severity.toUpperCase()}] ${e.status.toUpperCase()} ${e.rule}`,
        text: `${e.status} ${key}`,
      };
    });
    events.push(...batch);
    run(batch, nowMs);
  }
  for (let ticks = 0; dueAt !== undefined && ticks < 1000; ticks += 1) run([], dueAt);
  return { events, outbound, finalDue: dueAt };
}
