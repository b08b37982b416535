import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_KEPT_LENGTH } from '../../shared/records/bounded';
import { readIdentity } from '../../shared/records/normalise';
import { readRow, recordPlan, rowKey } from '../../shared/records/record';

const ZONE = 'Asia/Kolkata';

/** The rule as the API notes state it, written the plain way. */
function reference(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+\.\d+$/.test(trimmed) ? trimmed.replace(/\.?0+$/, '') : trimmed;
}

describe('Function: readIdentity', () => {
  it('drops only the trailing zeros of a decimal-shaped id, as the plain rule does', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^ ?[0-9a-f.-]{0,14} ?$/), (text) => {
        expect(readIdentity(text)).toBe(reference(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a number and its string form as one id', () => {
    expect(readIdentity('1763700259.430')).toBe('1763700259.43');
    expect(readIdentity(1763700259.43)).toBe('1763700259.43');
    expect(readIdentity('100')).toBe('100');
  });

  it('keeps a long id as its start and a digest: short enough for keys, still distinct', () => {
    const long = `call-${'x'.repeat(100_000)}`;
    const other = `${long.slice(0, -1)}y`;
    const id = readIdentity(long) ?? '';
    expect(id.length).toBeLessThanOrEqual(MAX_KEPT_LENGTH);
    expect(id.startsWith('call-xxx')).toBe(true);
    expect(readIdentity(` ${long} `)).toBe(id);
    expect(readIdentity(other)).not.toBe(id);
    expect(readIdentity('y'.repeat(MAX_KEPT_LENGTH))).toBe('y'.repeat(MAX_KEPT_LENGTH));
  });
});

describe('Function: rowKey', () => {
  it('is the identity the record reads, for any call id or payment id', () => {
    const id = fc.oneof(
      fc.uuid(),
      fc.stringMatching(/^[ \u00a0\ufeff]?[0-9a-f.\-x ]{0,14}[ \u00a0\ufeff0]?$/),
      fc.string({ maxLength: 8 }),
      fc.string({ minLength: 120, maxLength: 200 }),
      fc.stringMatching(/^[0-9a-f]{120,140}0?$/),
      fc.double(),
      fc.integer(),
      fc.constantFrom(null, undefined, true, '', ' ', '0', '10.50', '\u00a0a\u00a0'),
    );
    fc.assert(
      fc.property(fc.constantFrom('live_calls', 'payments'), id, (source, value) => {
        const field = source === 'live_calls' ? 'call_id' : 'id';
        const raw = { [field]: value, id: 7 } as Record<string, unknown>;
        const outcome = readRow(recordPlan(source, ZONE, undefined), raw);
        const expected = 'record' in outcome ? outcome.record.key : undefined;
        expect(rowKey(source, raw)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
