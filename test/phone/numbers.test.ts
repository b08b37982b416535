import { describe, expect, it } from 'vitest';
import {
  e164Of,
  readInternationalNumber,
  readWrittenNumber,
  samePhoneNumber,
  takesSms,
} from '../../shared/phone/numbers';

describe('Function: readInternationalNumber', () => {
  it('reads a valid number to E.164 with its country and kind, separators dropped', () => {
    expect(readInternationalNumber('+91 98000 00001')).toEqual({
      ok: true,
      e164: '+919800000001',
      country: 'IN',
      where: 'India (+91)',
      type: 'MOBILE',
    });
    expect(readInternationalNumber('+1 (202) 555-0100')).toMatchObject({
      ok: true,
      e164: '+12025550100',
      where: 'United States (+1)',
      type: 'FIXED_LINE_OR_MOBILE',
    });
  });

  it('refuses +9800000001, read as Iran, naming the country and the Indian number meant', () => {
    expect(readInternationalNumber('+9800000001')).toEqual({
      ok: false,
      message:
        '"+9800000001" is not a valid number: read as Iran (+98), it is no number there (in no range of its plan); for India (+91) write "+919800000001"',
    });
  });

  it('names the length that is wrong for the country', () => {
    expect(readInternationalNumber('+91980000')).toEqual({
      ok: false,
      message:
        '"+91980000" is not a valid number: read as India (+91), it is too short for a number there',
    });
    expect(readInternationalNumber('+4479111234567890')).toMatchObject({
      ok: false,
      message: expect.stringContaining('read as United Kingdom (+44), it is too long'),
    });
  });

  it('refuses a number without a country code, giving its E.164 form read as India', () => {
    expect(readInternationalNumber('9800000001')).toEqual({
      ok: false,
      message:
        '"9800000001" has no country code: read as India (+91) it is "+919800000001"; write that',
    });
  });

  it('refuses text that is no number, and a country code of no country', () => {
    expect(readInternationalNumber('+91 abc')).toEqual({
      ok: false,
      message: '"+91 abc" is not a phone number',
    });
    expect(readInternationalNumber('+99912345678')).toEqual({
      ok: false,
      message: '"+99912345678" is not a valid phone number: its country code is no country\'s',
    });
  });
});

describe('Function: takesSms', () => {
  it('is true for mobile lines and plans that cannot tell, false for fixed lines and toll-free', () => {
    const kinds = ['+919800000001', '+12025550100', '+911140000000', '+18005550199'].map(
      (number) => {
        const read = readInternationalNumber(number);
        return read.ok && takesSms(read);
      },
    );
    expect(kinds).toEqual([true, true, false, false]);
  });
});

describe('Function: readWrittenNumber, e164Of, samePhoneNumber', () => {
  it('reads a national number as India and compares numbers by what they are', () => {
    expect(readWrittenNumber('08000000001')).toMatchObject({ ok: true, e164: '+918000000001' });
    expect(e164Of('8000000001')).toBe('+918000000001');
    expect(e164Of('+91 80000 00001')).toBe('+918000000001');
    expect(e164Of('+9800000001')).toBeUndefined();
    expect(samePhoneNumber('08000000001', '+918000000001')).toBe(true);
    expect(samePhoneNumber('08000000001', '+918000000002')).toBe(false);
    expect(samePhoneNumber('abc', 'abc')).toBe(false);
  });
});
