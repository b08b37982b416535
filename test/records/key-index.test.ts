import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordBatch } from '../../shared/records/batch';
import { KeyIndex, sampledHash } from '../../shared/records/key-index';

/** The reference: each identity's rows, in order. */
function rowsByKey(keys: readonly string[]): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  keys.forEach((key, row) => {
    rows.set(key, [...(rows.get(key) ?? []), row]);
  });
  return rows;
}

/** The index of `keys`, with their hashes taken beforehand (as `readBatch` does) or not. */
function indexOf(keys: readonly string[], hashed: boolean): KeyIndex {
  return hashed ? KeyIndex.of(keys, Uint32Array.from(keys, sampledHash)) : KeyIndex.of(keys);
}

const key = fc.oneof(
  fc.constantFrom('a', 'b', 'id:1', '', 'c08f50b7-98e7-4308-aec8-ca5fe14d7ea3'),
  fc.string({ maxLength: 6 }),
  fc.uuid(),
);

describe('Class: KeyIndex', () => {
  it('finds every row of an identity, in order, and none of an absent one', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), key, fc.boolean(), (keys, absent, hashed) => {
        const index = indexOf(keys, hashed);
        const expected = rowsByKey(keys);
        for (const [id, rows] of expected) expect(index.rowsOf(id)).toEqual(rows);
        if (!expected.has(absent)) expect(index.rowsOf(absent)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('marks exactly the rows whose identity another row has', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 60 }), fc.boolean(), (keys, hashed) => {
        const counts = rowsByKey(keys);
        const rows = keys.map((id) => ((counts.get(id)?.length ?? 0) > 1 ? 1 : 0));
        const { repeats } = indexOf(keys, hashed);
        expect(repeats === undefined ? undefined : [...repeats]).toEqual(
          rows.includes(1) ? rows : undefined,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it.each([false, true])(
    'tells apart ids alike at both ends, differing only in the middle (hashed before: %s)',
    (hashed) => {
      // Every sampled hash meets: the index falls back to hashing every character.
      const keys = Array.from(
        { length: 3000 },
        (_, i) => `prefix--${String(i).padStart(5, '0')}--suffix`,
      );
      const index = indexOf([...keys, keys[1234] as string], hashed);
      expect(index.rowsOf(keys[1234] as string)).toEqual([1234, 3000]);
      expect(index.rowsOf(keys[7] as string)).toEqual([7]);
      expect(index.rowsOf('prefix--99999--suffix')).toEqual([]);
      expect(index.repeats?.reduce((sum, flag) => sum + flag, 0)).toBe(2);
    },
  );

  it('tells apart ids whose hashes collide', () => {
    // Known FNV-1a 32-bit collisions.
    const index = KeyIndex.of(['costarring', 'liquid', 'declinate', 'macallums', 'liquid']);
    expect(index.rowsOf('costarring')).toEqual([0]);
    expect(index.rowsOf('liquid')).toEqual([1, 4]);
    expect(index.rowsOf('macallums')).toEqual([3]);
    expect(index.repeats && [...index.repeats]).toEqual([0, 1, 0, 0, 1]);
  });

  it('tells apart thousands of ids that share all but their last characters', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `call-${String(i).padStart(6, '0')}`);
    expect(KeyIndex.of(keys).repeats).toBeUndefined();
    const index = KeyIndex.of([...keys, 'call-004999']);
    expect(index.rowsOf('call-004999')).toEqual([4999, 5000]);
    expect(index.repeats?.reduce((sum, flag) => sum + flag, 0)).toBe(2);
  });
});

describe('Class: RecordBatch', () => {
  describe('Method: indexOfKey', () => {
    const batchOf = (keys: readonly string[]) =>
      RecordBatch.of(keys.map((id) => ({ source: 'payments' as const, key: id, fields: {} })));

    it('finds the first row of an identity whether the identities are ordered or not', () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 40 }),
          fc.constantFrom('ascending', 'descending', 'as is'),
          fc.integer({ min: 0, max: 10_000 }),
          (numbers, order, probe) => {
            const sorted =
              order === 'as is'
                ? numbers
                : [...new Set(numbers)].sort((a, b) => (order === 'ascending' ? a - b : b - a));
            const keys = sorted.map(String);
            const batch = batchOf(keys);
            expect(batch.indexOfKey(String(probe))).toBe(keys.indexOf(String(probe)));
            for (const id of keys) expect(batch.indexOfKey(id)).toBe(keys.indexOf(id));
          },
        ),
        { numRuns: 2000 },
      );
    });
  });
});
