import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DLT_SLOT, dltTemplateProblem, fillDltTemplate } from '../../shared/messages/dlt';
import { fitsOneSegment, isGsm7 } from '../../shared/messages/gsm7';
import { renderMessage } from '../../shared/messages/render';
import type { MessageInput } from '../../shared/messages/types';
import {
  config,
  longCallFiring,
  paymentResolved,
  ringingFiring,
  sourceUnavailable,
} from './fixtures';

const CONTRACT_TEMPLATE = 'telealert {#var#}: {#var#}. {#var#} -TLALRT';

/** A regex that matches exactly the template with each slot holding 0 to 30 UTF-16 units. */
function templatePattern(template: string): RegExp {
  const escaped = template
    .split(DLT_SLOT)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // `[^]` (any unit, line breaks too) without the u flag: each repetition is one UTF-16 unit.
  return new RegExp(`^${escaped.join('([^]{0,30})')}$`);
}

const devanagari = fc.string({
  unit: fc.integer({ min: 0x900, max: 0x97f }).map((code) => String.fromCodePoint(code)),
  maxLength: 60,
});
const fact = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  devanagari,
  fc.constantFrom('', 'राजेश कुमार', 'प्रिया 👩🏽‍💻', 'Zoë €[]{}', 'a\nb\r\nc', 'x'.repeat(200)),
);
const constantPart = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 .,:-()'), maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('€', '[', '^', 'é', 'Δ'), maxLength: 10 }),
  fc.constantFrom('अलर्ट ', 'सूचना: ', '🚨'),
);
/** Templates that pass validation: 1 to 5 slots between constant parts. */
const validTemplate = fc
  .array(constantPart, { minLength: 2, maxLength: 6 })
  .map((parts) => parts.join(DLT_SLOT))
  .filter((template) => dltTemplateProblem(template) === undefined);

describe('Function: dltTemplateProblem', () => {
  it('accepts the contract example', () => {
    expect(dltTemplateProblem(CONTRACT_TEMPLATE)).toBeUndefined();
  });

  it('refuses a template with no slot', () => {
    expect(dltTemplateProblem('telealert alert -TLALRT')).toMatch(/has no \{#var#\} slot/);
  });

  it('refuses a slot written in another way than {#var#}', () => {
    expect(dltTemplateProblem('alert {#VAR#} and {#var#}')).toMatch(/has \{#VAR#\}/);
  });

  it('refuses a template of several lines, since every SMS is sent as one', () => {
    expect(dltTemplateProblem('alert {#var#}\n-TLALRT')).toMatch(/line break/);
  });

  it('refuses fixed text that leaves no room in one GSM-7 segment', () => {
    expect(dltTemplateProblem(`${'a'.repeat(140)} {#var#}`)).toMatch(
      /141 characters of fixed text .* GSM-7 holds 160/,
    );
    expect(dltTemplateProblem(`${'a'.repeat(139)}{#var#}`)).toBeUndefined();
  });

  it('counts a template outside GSM-7 against the 70 of UCS-2', () => {
    expect(dltTemplateProblem(`अलर्ट ${'a'.repeat(44)} {#var#}`)).toMatch(/UCS-2 .* holds 70/);
    expect(dltTemplateProblem(`अलर्ट ${'a'.repeat(38)} {#var#}`)).toBeUndefined();
  });
});

describe('Function: fillDltTemplate', () => {
  it('fills the slots in order with the facts', () => {
    expect(fillDltTemplate(CONTRACT_TEMPLATE, ['FIRING calls', '6 ringing > 5', 'did +9180'])).toBe(
      'telealert FIRING calls: 6 ringing > 5. did +9180 -TLALRT',
    );
  });

  it('cuts a fact past 30 characters, marked with three dots', () => {
    const filled = fillDltTemplate('x {#var#} y', ['a'.repeat(40)]);
    expect(filled).toBe(`x ${'a'.repeat(27)}... y`);
  });

  it('says in the last slot how many facts did not fit', () => {
    expect(fillDltTemplate('{#var#} | {#var#}', ['one', 'two', 'three', 'four'])).toBe(
      'one | two; three; four',
    );
    expect(fillDltTemplate('{#var#} | {#var#}', ['one', 'a'.repeat(20), 'b'.repeat(20), 'c'])).toBe(
      `one | ${'a'.repeat(20)} +2 more`,
    );
  });

  it('keeps the most important fact in a single slot, with the count of the rest', () => {
    expect(fillDltTemplate('alert: {#var#}', ['FIRING too-many-ringing', '6 > 5', 'x'])).toBe(
      'alert: FIRING too-many-rin... +2 more',
    );
  });

  it('writes - in a slot no fact fills, and skips empty facts', () => {
    expect(fillDltTemplate('{#var#}/{#var#}/{#var#}', ['a', '', '  '])).toBe('a/-/-');
  });

  it('cuts the least important facts first when the segment is short', () => {
    const template = `${'k'.repeat(100)}{#var#}{#var#}{#var#}`;
    const filled = fillDltTemplate(template, ['1'.repeat(30), '2'.repeat(30), '3'.repeat(30)]);
    expect(filled).toBe(`${'k'.repeat(100)}${'1'.repeat(30)}${'2'.repeat(26)}...-`);
    expect(fitsOneSegment(filled)).toBe(true);
  });

  it('keeps a Hindi name in UCS-2 when the message still fits 70 units', () => {
    const filled = fillDltTemplate('alert {#var#}', ['राजेश कुमार']);
    expect(filled).toBe('alert राजेश कुमार');
  });

  it('replaces Hindi by ? when UCS-2 would cost more than it shows', () => {
    const template = `${'t'.repeat(60)} {#var#} {#var#}`;
    const filled = fillDltTemplate(template, ['FIRING rule', 'agent राजेश']);
    expect(filled).toBe(`${'t'.repeat(60)} FIRING rule agent ?`);
    expect(isGsm7(filled)).toBe(true);
  });

  it('never splits an emoji', () => {
    const filled = fillDltTemplate('{#var#}', ['👩🏽‍💻'.repeat(10)]);
    expect(filled.isWellFormed()).toBe(true);
    expect(filled.endsWith('…')).toBe(true);
    expect(filled.replace('…', '').length % '👩🏽‍💻'.length).toBe(0);
  });

  it('is the template with each slot at most 30 characters, in one segment, for any facts', () => {
    fc.assert(
      fc.property(validTemplate, fc.array(fact, { maxLength: 8 }), (template, facts) => {
        const filled = fillDltTemplate(template, facts);
        expect(filled).toMatch(templatePattern(template));
        expect(fitsOneSegment(filled)).toBe(true);
        expect(filled.isWellFormed()).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('Function: renderMessage with a DLT template', () => {
  const withDlt = (input: MessageInput, template: string): MessageInput => ({
    ...input,
    config: {
      ...config,
      sms: {
        type: 'Transactional',
        senderId: 'TLALRT',
        monthlyBudgetUsd: 1,
        dlt: { entityId: '1101234567890123456', templateId: '1107123456789012345', template },
      },
    },
  });

  it('fills the template with status and rule, the value, then the group', () => {
    expect(renderMessage(withDlt(ringingFiring, CONTRACT_TEMPLATE)).sms).toBe(
      'telealert FIRING too-many-ringing: 6 ringing > 5. did +918000000001 +2 more -TLALRT',
    );
  });

  const devanagariText = fc.string({
    unit: fc.integer({ min: 0x900, max: 0x97f }).map((code) => String.fromCodePoint(code)),
    maxLength: 40,
  });
  const anyText = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 80 }),
    devanagariText,
    fc.constantFrom('', 'राजेश कुमार', 'प्रिया 👩🏽‍💻', 'y'.repeat(300)),
  );
  const alert = fc
    .record({
      base: fc.constantFrom(ringingFiring, longCallFiring, paymentResolved, sourceUnavailable),
      context: fc.dictionary(
        fc.constantFrom('did', 'agent_name', 'id', 'amount_paid', 'kind'),
        anyText,
      ),
      label: anyText,
      status: fc.constantFrom('firing', 'resolved'),
    })
    .map(
      ({ base, context, label, status }): MessageInput => ({
        ...base,
        status: status as MessageInput['status'],
        context,
        labels: Object.fromEntries(Object.keys(base.labels).map((key) => [key, label])),
      }),
    );

  it('renders any alert into any valid template: slots within 30, one segment', () => {
    fc.assert(
      fc.property(alert, validTemplate, (input, template) => {
        const { sms } = renderMessage(withDlt(input, template));
        expect(sms).toMatch(templatePattern(template));
        expect(fitsOneSegment(sms)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
