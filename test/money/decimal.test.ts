import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareDecimal,
  type Decimal,
  formatDecimal,
  formatMoney,
  parseDecimal,
} from '../../shared/money/decimal';

/** A decimal as (units, scale) with its exact text, generated independently of the parser. */
const decimalText = fc
  .tuple(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 6 }))
  .map(([units, scale]) => {
    const negative = units < 0n;
    const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
    const whole = digits.slice(0, digits.length - scale);
    const fraction = digits.slice(digits.length - scale);
    return {
      units,
      scale,
      text: `${negative ? '-' : ''}${whole}${scale ? `.${fraction}` : ''}`,
    };
  });

const scaled = (value: Decimal, scale: number): bigint =>
  value.units * 10n ** BigInt(scale - value.scale);

function op(operator: string, a: bigint, b: bigint): boolean {
  switch (operator) {
    case '>':
      return a > b;
    case '<':
      return a < b;
    case '>=':
      return a >= b;
    case '<=':
      return a <= b;
    default:
      return a !== b;
  }
}

function decimalOp(operator: string, a: Decimal, b: Decimal): boolean {
  const c = compareDecimal(a, b);
  switch (operator) {
    case '>':
      return c > 0;
    case '<':
      return c < 0;
    case '>=':
      return c >= 0;
    case '<=':
      return c <= 0;
    default:
      return c !== 0;
  }
}

describe('Function: parseDecimal', () => {
  it('reads strings, numbers, thousands separators and spaces', () => {
    expect(formatDecimal(parseDecimal('1,234.50') as Decimal)).toBe('1234.5');
    expect(formatDecimal(parseDecimal(' 99 ') as Decimal)).toBe('99');
    expect(formatDecimal(parseDecimal(100000.1) as Decimal)).toBe('100000.1');
    expect(formatDecimal(parseDecimal('-3') as Decimal)).toBe('-3');
    expect(formatDecimal(parseDecimal('.5') as Decimal)).toBe('0.5');
    expect(formatDecimal(parseDecimal(1e-7) as Decimal)).toBe('0.0000001');
  });

  it('reads a JSON number of 1e21 and more, written with an exponent, exactly', () => {
    const read = (input: number) => formatDecimal(parseDecimal(input) as Decimal);
    expect(read(1e21)).toBe('1000000000000000000000');
    expect(read(-2.5e22)).toBe('-25000000000000000000000');
    expect(read(1.5e-7)).toBe('0.00000015');
  });

  it('returns undefined for anything that is not a decimal', () => {
    for (const input of ['', 'abc', '1.2.3', '.', '1e5', null, undefined, {}, NaN, Infinity]) {
      expect(parseDecimal(input), String(input)).toBeUndefined();
    }
  });

  it('round-trips format and parse for every decimal', () => {
    fc.assert(
      fc.property(decimalText, ({ units, scale, text }) => {
        const parsed = parseDecimal(text);
        expect(parsed).toBeDefined();
        const value = parsed as Decimal;
        expect(scaled(value, 6)).toBe(units * 10n ** BigInt(6 - scale));
        expect(parseDecimal(formatDecimal(value))).toEqual(value);
      }),
    );
  });

  it('reads a JSON money amount as the decimal its shortest text shows', () => {
    const amounts = fc
      .tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 6 }))
      .map(([units, scale]) => units / 10 ** scale);
    fc.assert(
      fc.property(amounts, (n) => {
        const value = parseDecimal(n) as Decimal;
        expect(Number(formatDecimal(value))).toBe(n === 0 ? 0 : n);
        expect(formatDecimal(value)).toBe(String(n === 0 ? 0 : n));
      }),
    );
  });
});

describe('Function: compareDecimal', () => {
  it('compares exactly, without float drift', () => {
    const a = parseDecimal('100000.10') as Decimal;
    const b = parseDecimal(100000.1) as Decimal;
    expect(compareDecimal(a, b)).toBe(0);
    expect(compareDecimal(parseDecimal('0.3') as Decimal, parseDecimal(0.1 + 0.2) as Decimal)).toBe(
      -1,
    );
  });

  it('agrees with BigInt arithmetic on scaled values for every operator', () => {
    fc.assert(
      fc.property(
        decimalText,
        decimalText,
        fc.constantFrom('>', '<', '>=', '<=', '<>'),
        (a, b, operator) => {
          const left = parseDecimal(a.text) as Decimal;
          const right = parseDecimal(b.text) as Decimal;
          expect(decimalOp(operator, left, right)).toBe(
            op(operator, scaled(left, 12), scaled(right, 12)),
          );
        },
      ),
    );
  });

  it('is antisymmetric and treats trailing zeros as equal', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (a, b) => {
        const left = parseDecimal(a.text) as Decimal;
        const right = parseDecimal(b.text) as Decimal;
        expect(compareDecimal(left, right)).toBe(-compareDecimal(right, left) || 0);
        expect(
          compareDecimal(left, parseDecimal(`${a.text}${a.scale ? '' : '.'}000`) as Decimal),
        ).toBe(0);
      }),
    );
  });
});

describe('Function: formatMoney', () => {
  it('writes two decimals at least, never rounding', () => {
    expect(formatMoney(parseDecimal('1500') as Decimal)).toBe('1500.00');
    expect(formatMoney(parseDecimal('1500.5') as Decimal)).toBe('1500.50');
    expect(formatMoney(parseDecimal('0.125') as Decimal)).toBe('0.125');
  });
});
