import { describe, expect, it } from 'vitest';
import { fitsOneSegment } from '../../shared/messages/gsm7';
import { MESSAGE_BODY_LIMIT, publishedBytes } from '../../shared/notifier/bodies';
import { compose } from '../../shared/notifier/compose';
import { renderSms, smsFacts } from '../../shared/notifier/sms';
import type { HeldEvent, MessageAlert } from '../../shared/notifier/types';
import { config, T0 } from '../engine/fixtures';

const CONFIG = config([]);
const ONCALL = CONFIG.channels.oncall;

function stuck(index: number): HeldEvent {
  const id = String(1_000_000 + index);
  return {
    id: `payment-stuck-pending{id=${id}}|firing|x`,
    at: T0,
    source: 'payments',
    rule: 'payment-stuck-pending',
    key: `payment-stuck-pending{id=${id}}`,
    status: 'firing',
    severity: 'warning',
    labels: { id },
    value: null,
    sms: `FIRING payment-stuck-pending: payment ${id}`,
    subject: `[WARNING] FIRING payment-stuck-pending: payment ${id}`,
  };
}

function alert(rule: string, label: string, severity: MessageAlert['severity']): MessageAlert {
  return {
    rule,
    key: `${rule}{x=${label}}`,
    status: 'firing',
    severity,
    labels: { x: label },
    value: null,
    at: '',
  };
}

describe('Function: compose', () => {
  it('splits 10,000 events into as few parts as fit SNS, each saying which part it is', () => {
    if (ONCALL === undefined) throw new Error('fixture has oncall');
    const events = Array.from({ length: 10_000 }, (_, index) => stuck(index));
    const parts = compose({
      config: CONFIG,
      channel: ONCALL,
      reason: 'alerts',
      groupKey: 'g',
      events,
      nowMs: T0,
      withSms: true,
    });
    const total = parts.reduce((sum, part) => sum + publishedBytes(part.message), 0);
    // As few as fit: no more than one part over what the bytes alone would need.
    expect(parts.length).toBeLessThanOrEqual(Math.ceil(total / MESSAGE_BODY_LIMIT) + 1);
    expect(parts.flatMap((part) => part.ids)).toEqual(events.map((event) => event.id));
    for (const [index, { message }] of parts.entries()) {
      expect(publishedBytes(message)).toBeLessThanOrEqual(MESSAGE_BODY_LIMIT);
      expect(message.subject).toContain(`(part ${index + 1}/${parts.length})`);
      expect(message.sms === null).toBe(index > 0);
    }
    expect(parts[0]?.message.sms).toBe('10000 alerts: 10000 payment-stuck-pending WARNING');
    expect(new Set(parts.map((part) => part.message.id)).size).toBe(parts.length);
  });

  it('tells one alert with its own SMS, subject and full text', () => {
    if (ONCALL === undefined) throw new Error('fixture has oncall');
    const event = { ...stuck(1), text: 'the whole story' };
    const [only] = compose({
      config: CONFIG,
      channel: ONCALL,
      reason: 'alerts',
      groupKey: 'g',
      events: [event],
      nowMs: T0,
      withSms: true,
    });
    expect(only?.message.sms).toBe(event.sms);
    expect(only?.message.subject).toBe(event.subject);
    expect(only?.message.text).toContain('the whole story');
  });
});

describe('Function: renderSms', () => {
  it('names several alerts of one rule in one fact, or counts them when that is too long', () => {
    const calls = (n: number) =>
      Array.from({ length: n }, (_, i) => alert('call-ringing-too-long', `c${i}`, 'warning'));
    expect(smsFacts('2 alerts', calls(2))).toEqual([
      '2 alerts',
      'call-ringing-too-long c0, c1 WARNING',
    ]);
    expect(smsFacts('9 alerts', calls(9))).toEqual(['9 alerts', '9 call-ringing-too-long WARNING']);
  });

  it('fills the DLT template from the same facts when the rules file has one', () => {
    if (ONCALL === undefined) throw new Error('fixture has oncall');
    const template = 'telealert {#var#}: {#var#}. {#var#} -TLALRT';
    const dlt = { entityId: '1101234567890123456', templateId: '1107123456789012345', template };
    const [part] = compose({
      config: { ...CONFIG, sms: { type: 'Transactional', monthlyBudgetUsd: 1, dlt } },
      channel: ONCALL,
      reason: 'alerts',
      groupKey: 'g',
      events: [stuck(1), stuck(2)],
      nowMs: T0,
      withSms: true,
    });
    expect(part?.message.sms).toBe('telealert 2 alerts: payment-stuck-pending 10000.... - -TLALRT');
  });

  it('puts the most important facts first and counts the rest', () => {
    const facts = smsFacts('3 alerts', [
      alert('call-ringing-too-long', 'c1', 'warning'),
      alert('ringing-spike', '+918000000001', 'critical'),
      { ...alert('payment-stuck-pending', '77', 'warning'), status: 'resolved' },
    ]);
    expect(facts).toEqual([
      '3 alerts',
      'ringing-spike +918000000001 CRITICAL',
      'call-ringing-too-long c1 WARNING',
      'payment-stuck-pending 77 resolved',
    ]);
    expect(renderSms(facts)).toBe(
      '3 alerts: ringing-spike +918000000001 CRITICAL; call-ringing-too-long c1 WARNING; payment-stuck-pending 77 resolved',
    );
  });

  it('keeps to one segment, 70 characters once a fact is outside GSM-7', () => {
    const many = Array.from({ length: 30 }, (_, i) => alert(`rule-${i}`, `श्री-${i}`, 'warning'));
    const text = renderSms(smsFacts('30 alerts', many));
    expect(fitsOneSegment(text)).toBe(true);
    expect(text).toMatch(/^30 alerts: .*; \+\d+ more$/);
  });
});
