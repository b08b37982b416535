import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsOneSegment } from '../../shared/messages/gsm7';
import { renderMessage } from '../../shared/messages/render';
import type { MessageInput } from '../../shared/messages/types';
import {
  longCallFiring,
  paymentResolved,
  ringingFiring,
  rule,
  sourceUnavailable,
} from './fixtures';

const devanagari = fc.string({
  unit: fc.integer({ min: 0x900, max: 0x97f }).map((code) => String.fromCodePoint(code)),
  maxLength: 60,
});
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  devanagari,
  fc.constantFrom('राजेश कुमार', 'प्रिया 👩🏽‍💻', 'Zoë €[]{}', 'a\nb\r\nc'),
);
const fields = [
  'call_id',
  'did',
  'agent_name',
  'source',
  'call_time',
  'id',
  'amount_paid',
  'gateway',
];
const context = fc.dictionary(fc.oneof(fc.constantFrom(...fields), anyText), anyText, {
  maxKeys: 12,
});
const base = fc.constantFrom(ringingFiring, longCallFiring, paymentResolved, sourceUnavailable);

const arbitraryInput = fc
  .record({ base, context, label: anyText, status: fc.constantFrom('firing', 'resolved') })
  .map(
    ({ base, context, label, status }): MessageInput => ({
      ...base,
      status: status as MessageInput['status'],
      context,
      labels: Object.fromEntries(Object.keys(base.labels).map((key) => [key, label])),
    }),
  );

describe('Function: renderMessage', () => {
  it.each([
    ['an aggregate firing', ringingFiring],
    ['a per-record call firing with a Hindi agent name', longCallFiring],
    ['a per-record payment resolving', paymentResolved],
    ['source_unavailable', sourceUnavailable],
  ])('renders %s', (_name, input) => {
    expect(renderMessage(input)).toMatchSnapshot();
  });

  it('does not tell a resolution in the words of its firing: a paid payment is not "not settled after 51m"', () => {
    const firing = renderMessage({ ...paymentResolved, status: 'firing' });
    expect(firing.subject).toContain('not settled after 51m');
    const resolved = renderMessage(paymentResolved);
    for (const part of [resolved.sms, resolved.subject, resolved.text]) {
      expect(part).not.toContain('not settled');
    }
    expect(resolved.subject).toBe(
      '[WARNING] RESOLVED payment-stuck-pending: no longer matches; payment 98123 1499.50 Razorpay',
    );
  });

  it('says "1 poll failed" in the singular when health.after is 1', () => {
    const once: MessageInput = {
      ...sourceUnavailable,
      context: { ...sourceUnavailable.context, failures: '1' },
    };
    const rendered = renderMessage(once);
    expect(rendered.sms).toBe(
      'FIRING source_unavailable: payments 1 poll failed (auth 403); critical',
    );
    expect(rendered.text).toMatch(/1 poll in a row \(alert after /);
  });

  it('shows an empty group value as (empty), not a bare label', () => {
    const input: MessageInput = { ...ringingFiring, labels: { did: '' } };
    const rendered = renderMessage(input);
    expect(rendered.sms).toMatch(/^FIRING too-many-ringing: 6 ringing > 5; did \(empty\); /);
    expect(rendered.sms).not.toMatch(/did ;/);
    expect(rendered.text).toContain('did=""');
  });

  it('puts status, rule, value vs threshold and the group first in the sms', () => {
    expect(renderMessage(ringingFiring).sms).toMatch(
      /^FIRING too-many-ringing: 6 ringing > 5; did \+918000000001/,
    );
  });

  it('writes the subject with severity, status, rule and summary', () => {
    expect(renderMessage(ringingFiring).subject).toBe(
      '[CRITICAL] FIRING too-many-ringing: 6 calls ringing on +918000000001',
    );
  });

  it('shows the payment identity and amount for a per-record payment rule', () => {
    const input: MessageInput = {
      ...paymentResolved,
      rule: rule('large-payment'),
      ruleName: 'large-payment',
      status: 'firing',
      severity: 'info',
      context: { id: '98124', amount_paid: '150000.00', gateway: 'razorpay', status: 'success' },
      labels: { id: '98124' },
    };
    expect(renderMessage(input).sms).toBe(
      'FIRING large-payment: amount_paid 150000.00 >= 100000; payment 98124 150000.00 razorpay; payment 98124 of 150000.00 via razorpay; info',
    );
  });

  it('tells times in the configured zone and what to check in the text', () => {
    const { text } = renderMessage(sourceUnavailable);
    expect(text).toContain('Active since: 2026-11-21 10:01:00 IST');
    expect(text).toContain('/telealert/api-token');
    expect(text).toContain('3 polls in a row');
  });

  it('keeps every sms within one segment for arbitrary record contents', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const { sms } = renderMessage(input);
        expect(fitsOneSegment(sms)).toBe(true);
        expect(sms.isWellFormed()).toBe(true);
        expect(sms.startsWith(input.status === 'firing' ? 'FIRING ' : 'RESOLVED ')).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('never lets an API value add lines of its own to the email text', () => {
    const values = fc.dictionary(fc.constantFrom(...fields), anyText, { maxKeys: 8 });
    fc.assert(
      fc.property(base, values, anyText, (input, context, label) => {
        const labels = Object.fromEntries(Object.keys(input.labels).map((key) => [key, label]));
        const withValues = { ...input, context, labels, key: `${input.ruleName}{x=${label}}` };
        const plain = (record: Record<string, string>) =>
          Object.fromEntries(Object.keys(record).map((key) => [key, 'x']));
        const withX = { ...withValues, context: plain(context), labels: plain(labels), key: 'k' };
        const lines = (message: MessageInput) => renderMessage(message).text.split('\n').length;
        expect(lines(withValues)).toBe(lines(withX));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every subject ASCII, one line and under 100 characters', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const { subject } = renderMessage(input);
        expect(subject.length).toBeLessThan(100);
        expect(subject).toMatch(/^[\x20-\x7e]+$/);
      }),
      { numRuns: 400 },
    );
  });
});
