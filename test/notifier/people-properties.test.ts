import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Notification } from '../../shared/engine/types';
import { decide } from '../../shared/notifier/decide';
import type { PersonAction } from '../../shared/notifier/people';
import { makeSilence } from '../../shared/notifier/silence';
import type { MutedEvent, NotifierState, Outbound } from '../../shared/notifier/types';
import type { ChannelConfig, Config } from '../../shared/types/config';
import { config, MINUTE, T0 } from '../engine/fixtures';

const channel = (name: string): ChannelConfig => ({
  name,
  sms: ['+919800000001'],
  email: [`${name}@example.com`],
  group: { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE },
  smsPerHour: 20,
});

/** Rules that repeat and escalate, so acknowledgement and escalation have work to do. */
const CONFIG: Config = {
  ...config([
    {
      name: 'ringing',
      repeatMs: 5 * MINUTE,
      notify: ['oncall'],
      escalate: [
        { afterMs: 10 * MINUTE, notify: ['leads'] },
        { afterMs: 20 * MINUTE, notify: ['managers'] },
      ],
    },
    { name: 'spike', severity: 'critical', notify: ['oncall', 'leads'] },
  ]),
  channels: { oncall: channel('oncall'), leads: channel('leads'), managers: channel('managers') },
};

interface Step {
  readonly afterMs: number;
  readonly events: readonly {
    readonly rule: 'ringing' | 'spike';
    readonly key: string;
    readonly status: 'firing' | 'resolved';
  }[];
  readonly action:
    | { readonly kind: 'silence'; readonly rule: string; readonly forMs: number }
    | { readonly kind: 'ack'; readonly key: string }
    | null;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  afterMs: fc.integer({ min: 0, max: 12 * MINUTE }),
  events: fc.array(
    fc.record({
      rule: fc.constantFrom('ringing' as const, 'spike' as const),
      key: fc.constantFrom('a', 'b', 'c'),
      status: fc.constantFrom('firing' as const, 'resolved' as const),
    }),
    { maxLength: 4 },
  ),
  action: fc.option(
    fc.oneof(
      fc.record({
        kind: fc.constant('silence' as const),
        rule: fc.constantFrom('ringing', 'spike'),
        forMs: fc.integer({ min: 1, max: 40 }).map((m) => m * MINUTE),
      }),
      fc.record({ kind: fc.constant('ack' as const), key: fc.constantFrom('a', 'b', 'c') }),
    ),
    { nil: null },
  ),
});

function drive(steps: readonly Step[], followAtMost?: number) {
  let state: NotifierState | undefined;
  let dueAt: number | undefined;
  let nowMs = T0;
  let serial = 0;
  const events: Notification[] = [];
  const outbound: Outbound[] = [];
  const muted: MutedEvent[] = [];
  let mostFollowed = 0;
  const run = (batch: readonly Notification[], at: number, actions: PersonAction[] = []) => {
    const decision = decide(
      CONFIG,
      state,
      batch,
      at,
      actions,
      followAtMost === undefined ? {} : { followAtMost },
    );
    state = decision.state;
    mostFollowed = Math.max(mostFollowed, Object.keys(state.alerts ?? {}).length);
    dueAt = decision.nextDueAtMs;
    outbound.push(...decision.messages);
    muted.push(...decision.muted);
  };
  for (const step of steps) {
    const next = nowMs + step.afterMs;
    while (dueAt !== undefined && dueAt < next) run([], dueAt);
    nowMs = next;
    const actions: PersonAction[] = [];
    if (step.action?.kind === 'silence') {
      const silence = makeSilence({
        matchers: { rule: step.action.rule },
        startsAt: nowMs,
        endsAt: nowMs + step.action.forMs,
        comment: 'property',
        createdBy: 'p',
      });
      actions.push({ kind: 'silence', silence });
    } else if (step.action?.kind === 'ack') {
      const key = `ringing{call_id=${step.action.key}}`;
      actions.push({ kind: 'ack', key, by: 'p' });
    }
    const batch = step.events.map((e): Notification => {
      serial += 1;
      const key = `${e.rule}{call_id=${e.key}}`;
      return {
        id: `${key}|${e.status}|${serial}`,
        at: new Date(nowMs).toISOString(),
        source: 'live_calls',
        rule: e.rule,
        status: e.status,
        severity: e.rule === 'spike' ? 'critical' : 'warning',
        channels: e.rule === 'spike' ? ['oncall', 'leads'] : ['oncall'],
        key,
        labels: { call_id: e.key },
        sms: `${e.status} ${key}`,
        subject: `${e.status} ${key}`,
        text: `${e.status} ${key}`,
      };
    });
    events.push(...batch);
    run(batch, nowMs, actions);
  }
  for (let ticks = 0; dueAt !== undefined && ticks < 1000; ticks += 1) run([], dueAt);
  return { events, outbound, muted, finalDue: dueAt, mostFollowed };
}

const RUNS = { numRuns: 300 };

/** Every event reaches each of its channels in at most one message, and in one unless muted. */
function expectToldOnceOrMuted({ events, outbound, muted }: ReturnType<typeof drive>): void {
  const recorded = new Set(muted.map((item) => item.id));
  for (const event of events) {
    for (const name of event.channels) {
      const carrying = outbound.filter(
        (item) => item.message.channel === name && item.delivers.includes(event.id),
      );
      expect(carrying.length).toBeLessThanOrEqual(1);
      expect(carrying.length === 1 || recorded.has(event.id), event.id).toBe(true);
    }
  }
}

describe('Property: silences and acknowledgements lose no event', () => {
  it('tells every event to each of its channels at most once, and every one is told or recorded as muted', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 20 }), (steps) => {
        const driven = drive(steps);
        expect(driven.finalDue).toBeUndefined();
        expectToldOnceOrMuted(driven);
      }),
      RUNS,
    );
  });

  it('tells every event at most once or records it as muted, however few alerts it follows', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 20 }),
        fc.integer({ min: 0, max: 3 }),
        (steps, followAtMost) => {
          const driven = drive(steps, followAtMost);
          expect(driven.finalDue).toBeUndefined();
          expect(driven.mostFollowed).toBeLessThanOrEqual(followAtMost);
          expectToldOnceOrMuted(driven);
        },
      ),
      RUNS,
    );
  });

  it('escalates only the rule that has steps, only to its steps\u2019 channels', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 20 }), (steps) => {
        const { outbound } = drive(steps);
        for (const { message } of outbound.filter((item) => item.message.kind === 'escalation')) {
          expect(['leads', 'managers']).toContain(message.channel);
          expect(message.alerts.every((alert) => alert.rule === 'ringing')).toBe(true);
        }
      }),
      RUNS,
    );
  });
});
