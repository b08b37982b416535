import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalPhone, canonicalPhones } from '../../shared/records/phone';

// A leading space sends text down the general path (trim, then a regex over the digits), the
// reference the plain-digit fast path must agree with.
const plainPhones = fc.oneof(
  fc.stringMatching(/^\+?[0-9]{0,16}$/),
  fc.constantFrom('0091800000001', '+00918000000001', '08000000001', '+08000000001', '+'),
);

describe('Function: canonicalPhone', () => {
  it('reads digits with an optional + as the general path does', () => {
    fc.assert(
      fc.property(plainPhones, (text) => {
        expect(canonicalPhone(text)).toBe(canonicalPhone(` ${text}`));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes one number the same whichever way it comes', () => {
    for (const text of ['+918000000001', '918000000001', '08000000001', '8000000001']) {
      expect(canonicalPhone(text)).toBe('+918000000001');
    }
    expect(canonicalPhone('00918000000001')).toBe('+918000000001');
    expect(canonicalPhone('101')).toBe('101');
    expect(canonicalPhone('+91 (98123) 000-11')).toBe('+919812300011');
  });

  it('keeps text that is no phone number as it was sent, rather than reading its digits', () => {
    expect(canonicalPhone(' +91 abc ')).toBe('+91 abc');
    expect(canonicalPhone('9812300011 ext 5')).toBe('9812300011 ext 5');
    expect(canonicalPhone('anonymous')).toBe('anonymous');
    expect(canonicalPhones('+91 abc, 9812300011')).toEqual(['+91 abc', '+919812300011']);
  });

  it('is its own canonical form', () => {
    fc.assert(
      fc.property(fc.oneof(plainPhones, fc.string({ maxLength: 16 })), (text) => {
        expect(canonicalPhone(canonicalPhone(text))).toBe(canonicalPhone(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('Function: canonicalPhones', () => {
  it('reads one phone as a list of one, as splitting would', () => {
    fc.assert(
      fc.property(fc.oneof(plainPhones, fc.string({ maxLength: 14 })), (text) => {
        // The trailing comma forces the split path; the empty part it adds is dropped.
        expect(canonicalPhones(text)).toEqual(canonicalPhones(`${text},`));
      }),
      { numRuns: 3000 },
    );
  });
});
