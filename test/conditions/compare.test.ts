import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareText, equalsText } from '../../shared/conditions/compare';
import { compileWhere } from '../../shared/conditions/compile';
import { compareDecimal, formatDecimal, parseDecimal } from '../../shared/money/decimal';
import { canonicalPhone, isCanonicalPhone } from '../../shared/records/phone';
import { OPERATORS, type Operator } from '../../shared/types/config';
import { cond, payment, ZONE } from '../engine/fixtures';

function holds(op: Operator, comparison: number): boolean {
  if (op === '>') return comparison > 0;
  if (op === '<') return comparison < 0;
  if (op === '>=') return comparison >= 0;
  if (op === '<=') return comparison <= 0;
  return comparison !== 0;
}

const operator = fc.constantFrom(...OPERATORS);

/** Letters that fold, a digit, spaces that trim, characters whose lower case is not ASCII's. */
const TRICKY_TEXT = ['a', 'B', 'z', 'Z', '0', ' ', '\t', '\u00a0', 'İ', 'K', 'é'];

describe('Function: compileWhere (fast paths)', () => {
  // With digits and signs, so whole numbers are among them.
  const text = fc.string({
    unit: fc.constantFrom(...TRICKY_TEXT, '1', '9', '-'),
    maxLength: 6,
  });

  it('compares text as its trimmed lower case, whatever the characters', () => {
    fc.assert(
      fc.property(text, text, operator, (actual, expected, op) => {
        const left = actual.trim().toLowerCase();
        const right = expected.trim().toLowerCase();
        fc.pre(left !== '' && right !== '');
        const whole = /^(?:0|-?[1-9]\d*)$/;
        const order =
          whole.test(left) && whole.test(right)
            ? Math.sign(Number(left) - Number(right))
            : left < right
              ? -1
              : left > right
                ? 1
                : 0;
        const want = holds(op, order);
        const where = compileWhere('payments', { status: cond(`${op} ${expected}`) }, ZONE);
        expect(where(payment('1', { status: actual }), 0)).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });

  it('orders whole numbers in a text field as numbers, of any length', () => {
    const where = (condition: string) =>
      compileWhere('live_calls', { user_id: cond(condition) }, ZONE);
    const callOf = (userId: string | number) => ({
      source: 'live_calls' as const,
      key: 'c',
      fields: { call_id: 'c', user_id: userId },
    });
    const above100 = where('> 100');
    expect(
      [99, '1000', 200, ' 101 ', '100', '-5', 'abc'].map((u) => above100(callOf(u), 0)),
    ).toEqual([false, true, true, true, false, false, true]);
    expect(where('< -3')(callOf('-10'), 0)).toBe(true);
    expect(where('>= 18446744073709551616')(callOf('18446744073709551617'), 0)).toBe(true);
    expect(where('<> 100')(callOf('0100'), 0)).toBe(true);
  });

  const amount = fc
    .tuple(fc.boolean(), fc.nat({ max: 2_000_000 }), fc.nat({ max: 999 }), fc.nat({ max: 3 }))
    .map(([negative, whole, fraction, digits]) => {
      const text = `${negative ? '-' : ''}${whole}.${String(fraction).padStart(3, '0')}`;
      return text.slice(0, text.length - digits);
    });

  it('compares canonical money exactly against any amount', () => {
    fc.assert(
      fc.property(amount, amount, operator, (actual, expected, op) => {
        const left = parseDecimal(actual);
        const right = parseDecimal(expected);
        if (left === undefined || right === undefined) return;
        const want = holds(op, compareDecimal(left, right));
        const where = compileWhere('payments', { amount_paid: cond(`${op} ${expected}`) }, ZONE);
        expect(where(payment('1', { amount_paid: formatDecimal(left) }), 0)).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Function: equalsText', () => {
  it('agrees with compareText on equality, whatever the characters', () => {
    const text = fc.string({
      unit: fc.constantFrom(...TRICKY_TEXT, 'i', '\u0307'),
      maxLength: 6,
    });
    fc.assert(
      fc.property(text, text, (actual, expected) => {
        const right = expected.trim().toLowerCase();
        expect(equalsText(actual, right)).toBe(compareText(actual, right) === 0);
      }),
      { numRuns: 5000 },
    );
    expect(equalsText(' Pending ', 'pending')).toBe(true);
    expect(equalsText('pend ing', 'pending')).toBe(false);
    expect(equalsText(42, '42')).toBe(true);
  });
});

describe('Function: isCanonicalPhone', () => {
  it('holds only for text canonicalPhone returns unchanged', () => {
    const phone = fc.string({
      unit: fc.constantFrom('+', '0', '9', '1', '8', ' ', '-', ',', 'a'),
      maxLength: 16,
    });
    fc.assert(
      fc.property(phone, (text) => {
        if (isCanonicalPhone(text)) expect(canonicalPhone(text)).toBe(text);
      }),
      { numRuns: 5000 },
    );
    for (const text of ['+918000000001', '101', '+4420712345678']) {
      expect(isCanonicalPhone(text)).toBe(true);
      expect(canonicalPhone(text)).toBe(text);
    }
    for (const text of ['8000000001', '+08000000001', '+00918000000001', ' +918000000001']) {
      expect(isCanonicalPhone(text)).toBe(false);
    }
  });
});
