import { describe, expect, it } from 'vitest';
import type { Notification } from '../../shared/engine/types';
import { type DecideOptions, decide } from '../../shared/notifier/decide';
import { MAX_FOLLOWED_ALERTS } from '../../shared/notifier/follow';
import type { PersonAction } from '../../shared/notifier/people';
import { makeSilence } from '../../shared/notifier/silence';
import type { Decision, NotifierState } from '../../shared/notifier/types';
import type { ChannelConfig, Config } from '../../shared/types/config';
import { config, MINUTE, T0 } from '../engine/fixtures';
import { ringingEvent } from './events';

const channel = (name: string): ChannelConfig => ({
  name,
  sms: ['+919800000001'],
  email: [`${name}@example.com`],
  group: { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE },
  smsPerHour: 100,
});

/** `ringing` (warning) repeats and escalates; `spike` (critical) escalates. */
const CONFIG: Config = {
  ...config([
    {
      name: 'ringing',
      repeatMs: 5 * MINUTE,
      escalate: [{ afterMs: 10 * MINUTE, notify: ['leads'] }],
    },
    {
      name: 'spike',
      severity: 'critical',
      escalate: [{ afterMs: 10 * MINUTE, notify: ['leads'] }],
    },
  ]),
  channels: { oncall: channel('oncall'), leads: channel('leads') },
};

const ringing = (call: string, atMs: number) => ringingEvent(call, atMs);
const spike = (call: string, atMs: number): Notification =>
  ringingEvent(call, atMs, {
    id: `spike{call_id=${call}}|firing|${atMs}`,
    rule: 'spike',
    severity: 'critical',
    key: `spike{call_id=${call}}`,
    subject: `[CRITICAL] FIRING spike: call ${call}`,
  });

const AT_MOST_2: DecideOptions = { followAtMost: 2 };

function step(
  state: NotifierState | undefined,
  events: readonly Notification[],
  nowMs: number,
  actions: readonly PersonAction[] = [],
  options: DecideOptions = AT_MOST_2,
): Decision {
  return decide(CONFIG, state, events, nowMs, actions, options);
}

const followed = (decision: Decision) => Object.keys(decision.state.alerts ?? {});
const delivered = (decision: Decision) => decision.messages.flatMap((item) => item.delivers);
const escalated = (decision: Decision) =>
  decision.messages
    .filter((item) => item.message.kind === 'escalation')
    .flatMap((item) => item.message.alerts.map((alert) => alert.key));

describe('Function: decide, more firing alerts than it follows', () => {
  it('tells a firing past the limit like any other, saying in its text that nothing follows it', () => {
    const events = ['a', 'b', 'c'].map((call) => ringing(call, T0));
    const first = step(undefined, events, T0);
    expect(delivered(first)).toEqual(events.map((event) => event.id));
    expect(followed(first)).toEqual(['ringing{call_id=a}', 'ringing{call_id=b}']);
    expect(first.unfollowed).toEqual([
      { key: 'ringing{call_id=c}', rule: 'ringing', severity: 'warning', reason: 'full' },
    ]);
    const { text } = first.messages[0]?.message ?? { text: '' };
    expect(text).toContain(
      '1 of these alerts (marked "not followed") is not followed for escalation or acknowledgement: more than 2 alerts that repeat or escalate are firing.',
    );
    // The three stories told whole, only the third marked.
    expect(text.match(/\(not followed\)/g)).toHaveLength(1);
    expect(text.indexOf('(not followed)')).toBeGreaterThan(text.indexOf('the story of c'));
  });

  it('escalates only the alerts it follows', () => {
    const first = step(
      undefined,
      ['a', 'b', 'c'].map((call) => ringing(call, T0)),
      T0,
    );
    const later = step(first.state, [], T0 + 10 * MINUTE);
    expect(escalated(later)).toEqual(['ringing{call_id=a}', 'ringing{call_id=b}']);
  });

  it('sends the repeats of an alert it does not follow even once acknowledged, each saying so', () => {
    const first = step(
      undefined,
      ['a', 'b', 'c'].map((call) => ringing(call, T0)),
      T0,
    );
    const acks: PersonAction[] = ['a', 'c'].map((call) => ({
      kind: 'ack',
      key: `ringing{call_id=${call}}`,
      by: 'asha',
    }));
    const repeats = ['a', 'c'].map((call) => ringing(call, T0 + 5 * MINUTE));
    const again = step(first.state, repeats, T0 + 5 * MINUTE, acks);
    expect(again.muted.map((item) => [item.key, item.reason])).toEqual([
      ['ringing{call_id=a}', 'acknowledged'],
    ]);
    expect(delivered(again)).toEqual([repeats[1]?.id]);
    expect(again.messages[0]?.message.text).toContain(
      'Not followed for escalation or acknowledgement: more than 2 alerts that repeat or escalate are firing.',
    );
  });

  it('lets a critical firing take the place of the newest warning when full, whose escalation is dropped', () => {
    const first = step(undefined, [ringing('a', T0)], T0);
    const second = step(first.state, [ringing('b', T0 + MINUTE)], T0 + MINUTE);
    const critical = step(second.state, [spike('x', T0 + 2 * MINUTE)], T0 + 2 * MINUTE);
    expect(critical.unfollowed).toEqual([
      { key: 'ringing{call_id=b}', rule: 'ringing', severity: 'warning', reason: 'displaced' },
    ]);
    expect(followed(critical)).toEqual(['ringing{call_id=a}', 'spike{call_id=x}']);
    // Followed, so its message says nothing of the limit.
    expect(critical.messages[0]?.message.text).not.toContain('not followed');
    // A warning finds the followed alerts full and none less severe: not followed.
    const warning = step(critical.state, [ringing('d', T0 + 3 * MINUTE)], T0 + 3 * MINUTE);
    expect(warning.unfollowed.map((item) => [item.key, item.reason])).toEqual([
      ['ringing{call_id=d}', 'full'],
    ]);
    const later = step(warning.state, [], T0 + 12 * MINUTE);
    expect(escalated(later)).toEqual(['ringing{call_id=a}', 'spike{call_id=x}']);
  });

  it('follows an alert again from a repeat that finds room, once another resolved', () => {
    const first = step(
      undefined,
      ['a', 'b', 'c'].map((call) => ringing(call, T0)),
      T0,
    );
    const resolved = ringingEvent('a', T0 + MINUTE, {
      id: `ringing{call_id=a}|resolved|${T0 + MINUTE}`,
      status: 'resolved',
    });
    const freed = step(first.state, [resolved], T0 + MINUTE);
    const repeat = step(freed.state, [ringing('c', T0 + 5 * MINUTE)], T0 + 5 * MINUTE);
    expect(repeat.unfollowed).toEqual([]);
    expect(followed(repeat)).toEqual(['ringing{call_id=b}', 'ringing{call_id=c}']);
    expect(repeat.messages[0]?.message.text).not.toContain('not followed');
  });

  it('records a silenced firing past the limit as silenced, and does not tell it when the silence ends', () => {
    const first = step(
      undefined,
      ['a', 'b'].map((call) => ringing(call, T0)),
      T0,
    );
    const silence = makeSilence({
      matchers: { call_id: 'c' },
      startsAt: T0,
      endsAt: T0 + 8 * MINUTE,
      comment: 'test call',
      createdBy: 'asha',
    });
    // Held by the group's interval until T0 + 5m; the silence applies when its message goes.
    const held = step(first.state, [ringing('c', T0 + MINUTE)], T0 + MINUTE, [
      { kind: 'silence', silence },
    ]);
    expect(held.muted).toEqual([]);
    const silenced = step(held.state, [], T0 + 5 * MINUTE);
    expect(silenced.muted.map((item) => [item.key, item.reason])).toEqual([
      ['ringing{call_id=c}', 'silenced'],
    ]);
    expect(silenced.unfollowed.map((item) => item.key)).toEqual(['ringing{call_id=c}']);
    const ended = step(silenced.state, [], T0 + 8 * MINUTE);
    expect(ended.messages.flatMap((item) => item.message.alerts.map((a) => a.key))).toEqual([]);
  });

  it('marks each unfollowed alert of a message listing them a line each', () => {
    const events = ['a', 'b', 'c', 'd', 'e'].map((call) => ringing(call, T0));
    const [message] = step(undefined, events, T0).messages;
    const text = message?.message.text ?? '';
    expect(text).toContain('3 of these alerts (marked "not followed") are not followed');
    const marked = text.split('\n').filter((line) => line.endsWith('(not followed)'));
    expect(marked.map((line) => line.trim().split(' ')[0])).toEqual([
      'call_id=c',
      'call_id=d',
      'call_id=e',
    ]);
  });

  it('brings a state followed under a larger limit within its own, the least severe and newest first', () => {
    const events = [spike('x', T0), ...['a', 'b', 'c'].map((call) => ringing(call, T0 + MINUTE))];
    const wide = step(undefined, events, T0 + MINUTE, [], { followAtMost: 10 });
    const narrowed = step(wide.state, [], T0 + 2 * MINUTE);
    expect(followed(narrowed)).toEqual(['ringing{call_id=a}', 'spike{call_id=x}']);
    expect(narrowed.unfollowed.map((item) => [item.key, item.reason])).toEqual([
      ['ringing{call_id=c}', 'displaced'],
      ['ringing{call_id=b}', 'displaced'],
    ]);
  });

  it(`follows ${MAX_FOLLOWED_ALERTS} alerts unless told otherwise, as replay and the deployed notifier do`, () => {
    const events = Array.from({ length: MAX_FOLLOWED_ALERTS + 1 }, (_, n) =>
      ringing(`c${String(n).padStart(5, '0')}`, T0),
    );
    const decision = decide(CONFIG, undefined, events, T0);
    expect(followed(decision)).toHaveLength(MAX_FOLLOWED_ALERTS);
    expect(decision.unfollowed.map((item) => item.key)).toEqual([events.at(-1)?.key]);
    expect(delivered(decision)).toHaveLength(MAX_FOLLOWED_ALERTS + 1);
  });
});
