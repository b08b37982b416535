import { describe, expect, it } from 'vitest';
import { decide } from '../../shared/notifier/decide';
import { messageJson } from '../../shared/notifier/json';
import type { Config } from '../../shared/types/config';
import { config, DEFAULT_GROUP, MINUTE, rule, T0 } from '../engine/fixtures';
import { ringingEvent } from './events';

const HOUR = 60 * MINUTE;

/** Asha (email only) then Ravi, handing over daily at 10:30 IST; T0 is 10:00 on Asha's day. */
const ROTATING: Config = config([{ name: 'ringing' }], {
  people: {
    asha: { name: 'asha', email: 'asha@example.com' },
    ravi: { name: 'ravi', sms: '+919800000002' },
  },
  rotations: {
    primary: {
      name: 'primary',
      members: ['asha', 'ravi'],
      shiftMs: 24 * HOUR,
      handoff: { minutes: 10 * 60 + 30 },
      start: '2026-11-20',
    },
  },
  channels: {
    oncall: {
      name: 'oncall',
      sms: [],
      email: [],
      rotation: 'primary',
      group: DEFAULT_GROUP,
      smsPerHour: 1,
    },
    finance: {
      name: 'finance',
      sms: [],
      email: ['f@example.com'],
      group: DEFAULT_GROUP,
      smsPerHour: 20,
    },
  },
});

describe('Function: decide (rotations)', () => {
  it("stamps a rotation's messages with the person on call, and sends no SMS when they have no number", () => {
    const first = decide(
      ROTATING,
      undefined,
      [ringingEvent('c1', T0 - 40 * MINUTE)],
      T0 - 40 * MINUTE,
    );
    const [page, handoff] = first.messages.map((item) => item.message);
    expect(page).toMatchObject({ kind: 'alerts', oncall: 'asha', sms: null });
    expect(handoff).toMatchObject({ kind: 'handoff', oncall: 'asha', sms: null });
    expect(JSON.parse(messageJson(page as never))).toMatchObject({
      kind: 'alerts',
      oncall: 'asha',
    });
    expect(first.state.oncall).toEqual({ oncall: 'asha' });
  });

  it('is next due at the handoff, with nothing held, and hands over on the clock alone', () => {
    const first = decide(ROTATING, undefined, [], T0);
    expect(first.heldDueAtMs).toBeUndefined();
    expect(first.nextDueAtMs).toBe(T0 + 30 * MINUTE);
    const handed = decide(ROTATING, first.state, [], T0 + 30 * MINUTE);
    expect(handed.messages.map((item) => item.message)).toEqual([
      expect.objectContaining({
        kind: 'handoff',
        oncall: 'ravi',
        sms: 'ravi: on call for oncall until Sun 22 Nov 10:30; no firing alerts',
      }),
    ]);
    expect(decide(ROTATING, handed.state, [], T0 + 31 * MINUTE).messages).toEqual([]);
  });

  it('sends the handoff SMS even when the SMS cap is spent', () => {
    const first = decide(ROTATING, undefined, [], T0 + 30 * MINUTE);
    const paged = decide(
      ROTATING,
      first.state,
      [ringingEvent('c1', T0 + 31 * MINUTE)],
      T0 + 31 * MINUTE,
    );
    expect(paged.messages[0]?.message.sms).not.toBeNull();
    const capped = decide(
      ROTATING,
      paged.state,
      [ringingEvent('c2', T0 + 40 * MINUTE, { rule: 'other', key: 'other{call_id=c2}' })],
      T0 + 40 * MINUTE,
    );
    expect(capped.messages[0]?.smsHeld).toBe(true);
    // Someone else's override starts: the handoff to them is not held by the cap.
    const withOverride = decide(ROTATING, capped.state, [], T0 + 41 * MINUTE, [
      {
        kind: 'override',
        override: {
          id: 'o1',
          rotation: 'primary',
          who: 'asha',
          from: T0 + 41 * MINUTE,
          until: T0 + 2 * HOUR,
          createdBy: 'lead',
          createdAt: T0 + 41 * MINUTE,
        },
      },
    ]);
    const handoff = withOverride.messages.find((item) => item.message.kind === 'handoff');
    expect(handoff?.message.oncall).toBe('asha');
    expect(handoff?.smsHeld).toBe(false);
    expect(withOverride.state.overrides?.map((override) => override.id)).toEqual(['o1']);
  });

  it('puts no oncall on messages of channels without a rotation', () => {
    const event = ringingEvent('p1', T0, { channels: ['finance'] });
    const decision = decide(ROTATING, undefined, [event], T0);
    const finance = decision.messages.find((item) => item.message.channel === 'finance');
    expect(finance?.message).not.toHaveProperty('oncall');
  });

  it("sends a handoff's SMS to the incoming person alone, not to the channel's fixed numbers", () => {
    const fixed: Config = {
      ...ROTATING,
      channels: {
        ...ROTATING.channels,
        oncall: {
          name: 'oncall',
          sms: ['+919800000009'],
          email: [],
          rotation: 'primary',
          group: DEFAULT_GROUP,
          smsPerHour: 1,
        },
      },
    };
    const handoff = decide(fixed, undefined, [], T0).messages[0]?.message;
    // Asha has no number: her handoff goes by email; the fixed number is not told of it.
    expect(handoff).toMatchObject({ kind: 'handoff', oncall: 'asha', sms: null });
  });

  it('lists in a handoff the firing alerts told, not one resolved in the same step', () => {
    // A rule that repeats: its firing alerts are followed, so a handoff can list them.
    const repeating: Config = {
      ...ROTATING,
      rules: [rule({ name: 'ringing', repeatMs: 5 * MINUTE })],
    };
    const first = decide(
      repeating,
      undefined,
      [ringingEvent('c1', T0 + 20 * MINUTE)],
      T0 + 20 * MINUTE,
    );
    const resolved = ringingEvent('c1', T0 + 30 * MINUTE, {
      id: 'ringing{call_id=c1}|resolved|x',
      status: 'resolved',
    });
    const handed = decide(
      repeating,
      first.state,
      [resolved, ringingEvent('c2', T0 + 30 * MINUTE)],
      T0 + 30 * MINUTE,
    );
    const handoff = handed.messages.find((item) => item.message.kind === 'handoff')?.message;
    expect(handoff?.alerts.map((alert) => alert.key)).toEqual(['ringing{call_id=c2}']);
  });
});
