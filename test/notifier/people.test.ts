import { describe, expect, it } from 'vitest';
import { AckError, SilenceError } from '../../shared/notifier/errors';
import { acknowledge, addSilence, expireSilence } from '../../shared/notifier/people';
import { makeSilence, silenceFor, silenceMatches } from '../../shared/notifier/silence';
import type { NotifierState, TrackedAlert } from '../../shared/notifier/types';

const T0 = Date.parse('2026-11-21T04:30:00Z');
const HOUR = 3_600_000;

const silence = (matchers: Record<string, string>, endsAt = T0 + HOUR) =>
  makeSilence({ matchers, startsAt: T0, endsAt, comment: 'maintenance', createdBy: 'asha' });

const payment = {
  rule: 'large-payment',
  severity: 'warning' as const,
  source: 'payments' as const,
  labels: { id: '901', did: '+918000000001' },
};

const tracked = (rule: string): TrackedAlert => ({
  rule,
  source: 'live_calls',
  severity: 'warning',
  labels: {},
  channels: ['oncall'],
  firedAt: T0,
  lastFiringAt: T0,
});

describe('Function: makeSilence', () => {
  it('refuses a silence with no matcher: it would silence everything', () => {
    expect(() => silence({})).toThrow(SilenceError);
    expect(() => silence({})).toThrow(/at least one matcher/);
  });

  it('refuses an empty matcher value and an end not after the start', () => {
    expect(() => silence({ rule: '' })).toThrow(/needs a name and a value/);
    expect(() => silence({ rule: 'x' }, T0)).toThrow(/must end after it starts/);
  });

  it('gives the same silence the same id, and another one another', () => {
    expect(silence({ rule: 'x', did: '1' }).id).toBe(silence({ did: '1', rule: 'x' }).id);
    expect(silence({ rule: 'x' }).id).not.toBe(silence({ rule: 'y' }).id);
  });
});

describe('Function: silenceMatches', () => {
  it('matches on rule, severity, source and labels, every matcher, a phone written any way', () => {
    expect(silenceMatches(silence({ rule: 'large-payment' }), payment)).toBe(true);
    expect(silenceMatches(silence({ severity: 'warning', source: 'payments' }), payment)).toBe(
      true,
    );
    expect(silenceMatches(silence({ rule: 'large-payment', did: '08000000001' }), payment)).toBe(
      true,
    );
    expect(silenceMatches(silence({ rule: 'large-payment', id: '902' }), payment)).toBe(false);
    expect(silenceMatches(silence({ agent: 'x' }), payment)).toBe(false);
  });

  it('names a label that shares a field name with labels.NAME (the rule too_many_alerts stands for)', () => {
    const limited = {
      rule: 'too_many_alerts',
      severity: 'warning',
      source: 'payments',
      labels: { rule: 'every-payment' },
    } as const;
    expect(silenceMatches(silence({ 'labels.rule': 'every-payment' }), limited)).toBe(true);
    expect(silenceMatches(silence({ 'labels.rule': 'large-payment' }), limited)).toBe(false);
    expect(silenceMatches(silence({ rule: 'every-payment' }), limited)).toBe(false);
    expect(silenceMatches(silence({ 'labels.did': '08000000001' }), payment)).toBe(true);
  });

  it('compares a label as the rules read its field: text in any case, phones and directions however written, the identity as it is', () => {
    const call = {
      rule: 'ringing',
      severity: 'warning' as const,
      source: 'live_calls' as const,
      labels: {
        call_id: 'C1',
        agent_name: 'Ravi Kumar',
        destination: '+919812300011,+919812300012',
        direction: '1',
      },
    };
    expect(silenceMatches(silence({ agent_name: 'ravi kumar' }), call)).toBe(true);
    expect(silenceMatches(silence({ agent_name: ' RAVI KUMAR ' }), call)).toBe(true);
    expect(silenceMatches(silence({ agent_name: 'ravi' }), call)).toBe(false);
    expect(silenceMatches(silence({ destination: '9812300012, 09812300011' }), call)).toBe(true);
    expect(silenceMatches(silence({ direction: 'Inbound' }), call)).toBe(true);
    expect(silenceMatches(silence({ direction: 'outbound' }), call)).toBe(false);
    expect(silenceMatches(silence({ call_id: 'C1' }), call)).toBe(true);
    expect(silenceMatches(silence({ call_id: 'c1' }), call)).toBe(false);
    expect(silenceMatches(silence({ rule: 'Large-Payment' }), payment)).toBe(true);
  });

  it('holds from its start until its end, not after', () => {
    const list = [silence({ rule: 'large-payment' })];
    expect(silenceFor(list, payment, T0 - 1)).toBeUndefined();
    expect(silenceFor(list, payment, T0)).toBe(list[0]);
    expect(silenceFor(list, payment, T0 + HOUR)).toBeUndefined();
  });
});

describe('Function: expireSilence', () => {
  it('ends a silence now, by its id or a unique start of it, and keeps it listed', () => {
    const added = addSilence(undefined, silence({ rule: 'x' }));
    const id = added.silences?.[0]?.id ?? '';
    const { state, silence: ended } = expireSilence(added, id.slice(0, 4), T0 + 60_000);
    expect(ended.endsAt).toBe(T0 + 60_000);
    expect(state.silences).toEqual([ended]);
  });

  it('says so when no silence has the id', () => {
    expect(() => expireSilence(undefined, 'abc', T0)).toThrow(/no silence "abc"/);
  });
});

describe('Function: acknowledge', () => {
  const state: NotifierState = {
    version: 1,
    channels: {},
    alerts: {
      'ringing{call_id=c1}': tracked('ringing'),
      'ringing{call_id=c2}': tracked('ringing'),
      'spike{did=1}': tracked('spike'),
    },
  };

  it('acknowledges one alert by key, or every alert of a rule, keeping a first acknowledgement', () => {
    const ack = { by: 'ravi', at: T0, via: 'cli' as const };
    const one = acknowledge(state, { key: 'spike{did=1}' }, ack);
    expect(one.keys).toEqual(['spike{did=1}']);
    const rule = acknowledge(one.state, { rule: 'ringing' }, { ...ack, by: 'mina' });
    expect(rule.keys).toEqual(['ringing{call_id=c1}', 'ringing{call_id=c2}']);
    const again = acknowledge(rule.state, { key: 'spike{did=1}' }, { ...ack, by: 'mina' });
    expect(again.state.alerts?.['spike{did=1}']?.ack?.by).toBe('ravi');
    expect(again.state.alerts?.['ringing{call_id=c2}']?.ack?.by).toBe('mina');
  });

  it('replaces an acknowledgement by call (which lapses) with a person’s, never the other way', () => {
    const call = { by: '+919800000001', at: T0, via: 'call' as const, until: T0 + 1_800_000 };
    const byCall = acknowledge(state, { key: 'spike{did=1}' }, call);
    const byCli = acknowledge(
      byCall.state,
      { key: 'spike{did=1}' },
      { by: 'ravi', at: T0, via: 'cli' },
    );
    expect(byCli.state.alerts?.['spike{did=1}']?.ack).toEqual({ by: 'ravi', at: T0, via: 'cli' });
    const callAgain = acknowledge(byCli.state, { key: 'spike{did=1}' }, call);
    expect(callAgain.state.alerts?.['spike{did=1}']?.ack?.via).toBe('cli');
  });

  it('refuses to acknowledge what is not a followed firing alert', () => {
    expect(() => acknowledge(state, { key: 'nope' }, { by: 'x', at: T0, via: 'cli' })).toThrow(
      AckError,
    );
  });
});
