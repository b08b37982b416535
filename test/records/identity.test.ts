import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readIdentity } from '../../shared/records/normalise';

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
});
