import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstKeys } from '../../shared/engine/first-keys';

describe('Class: FirstKeys', () => {
  it('keeps the first keys in key order and leaves out each other key once', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ maxLength: 4 }), { maxLength: 60 }),
        fc.nat({ max: 70 }),
        (keys, capacity) => {
          const first = new FirstKeys(capacity);
          const out = keys.map((key) => first.offer(key)).filter((key) => key !== undefined);
          const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect([...out].sort()).toEqual([...sorted.slice(capacity)].sort());
        },
      ),
    );
  });

  it('returns the key itself when it comes after every key kept, the pushed-out key otherwise', () => {
    const first = new FirstKeys(2);
    expect(first.offer('m')).toBeUndefined();
    expect(first.offer('c')).toBeUndefined();
    expect(first.offer('x')).toBe('x');
    expect(first.offer('a')).toBe('m');
    expect(first.offer('b')).toBe('c');
  });
});
