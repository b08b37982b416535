import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../shared/runner/json-equal';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A deep copy that keeps what `structuredClone` refuses (functions) and array holes. */
function copyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOf);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, copyOf(member)]));
}

// Values JSON writes oddly: undefined members, functions, non-finite and negative zero, holes.
const odd = fc.constantFrom(undefined, () => 1, Number.NaN, Number.POSITIVE_INFINITY, -0, 0, null);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    odd,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'value'), tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('Function: jsonEqual', () => {
  it('says what comparing the two JSON texts says, for any two values', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(jsonEqual(a, b)).toBe(same(a, b));
      }),
      { numRuns: 5000 },
    );
  });

  it('says what comparing the texts says for a value and a slightly changed copy of it', () => {
    fc.assert(
      fc.property(value, fc.jsonValue({ maxDepth: 1 }), fc.nat(), (a, change, at) => {
        const copy = copyOf(a);
        if (copy !== null && typeof copy === 'object') {
          const keys = Object.keys(copy);
          const key = keys[at % Math.max(1, keys.length)] ?? 'a';
          (copy as Record<string, unknown>)[key] = change;
        }
        expect(jsonEqual(a, copy)).toBe(same(a, copy));
        expect(jsonEqual(copy, a)).toBe(same(copy, a));
      }),
      { numRuns: 3000 },
    );
  });

  it('tells keys in another order apart, and reads dates, boxes and toJSON as JSON does', () => {
    expect(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual([undefined], [null])).toBe(true);
    expect(jsonEqual({ at: new Date(0) }, { at: '1970-01-01T00:00:00.000Z' })).toBe(true);
    expect(jsonEqual([new Number(Number.NaN)], [null])).toBe(true);
    expect(jsonEqual({ k: { toJSON: (key: string) => key } }, { k: 'k' })).toBe(true);
  });
});
