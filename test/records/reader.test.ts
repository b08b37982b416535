import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldKind } from '../../shared/records/fields';
import { fieldReader, loopReader } from '../../shared/records/reader';
import { RECORD_FIELDS } from '../../shared/records/schema';

const ZONE = 'Asia/Kolkata';

const value = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.string({ maxLength: 10 }),
  fc.integer({ min: -5, max: 100_000 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(['8000000001', 9000000002]),
  fc.constant({ nested: true }),
  fc.constantFrom(
    '2026-11-21 10:00:05',
    '21-Nov-2026 23:59:59',
    '00:01:02',
    ' 12.50 ',
    'inbound',
    '+918000000001',
    '8000000001, 8000000002',
    '',
  ),
);

describe('Function: fieldReader', () => {
  it('reads every field list as the loop does, keys in the same order', () => {
    const source = fc.constantFrom('live_calls' as const, 'payments' as const);
    fc.assert(
      fc.property(
        source.chain((s) =>
          fc.tuple(
            fc.subarray(RECORD_FIELDS[s] as (readonly [string, FieldKind])[], { minLength: 1 }),
            fc.dictionary(fc.constantFrom(...RECORD_FIELDS[s].map(([name]) => name)), value),
          ),
        ),
        ([read, raw]) => {
          const generated = fieldReader(read)(raw, ZONE);
          const looped = loopReader(read)(raw, ZONE);
          expect(generated).toEqual(looped);
          if (generated && looped) expect(Object.keys(generated)).toEqual(Object.keys(looped));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives one reader per field list', () => {
    const read = RECORD_FIELDS.live_calls.slice(0, 3);
    expect(fieldReader(read)).toBe(fieldReader([...read]));
  });
});
