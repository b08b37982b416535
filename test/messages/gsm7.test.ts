import { describe, expect, it } from 'vitest';
import { fitsOneSegment, gsm7Length, isGsm7 } from '../../shared/messages/gsm7';

describe('Function: gsm7Length', () => {
  it.each([
    ['hello', 5],
    ['€5 [x]', 9],
    ['~^|\\{}', 12],
    ['Ünïcödé?', undefined],
    ['राजेश', undefined],
    ['`', undefined],
  ])('counts %j as %s septets', (text, septets) => {
    expect(gsm7Length(text)).toBe(septets);
  });
});

describe('Function: isGsm7', () => {
  it('accepts the basic alphabet and refuses emoji', () => {
    expect(isGsm7('@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¡ÄÖÑÜ§¿äöñüà')).toBe(true);
    expect(isGsm7('ok 👍')).toBe(false);
  });
});

describe('Function: fitsOneSegment', () => {
  it('allows 160 GSM-7 characters but 80 extension characters', () => {
    expect(fitsOneSegment('a'.repeat(160))).toBe(true);
    expect(fitsOneSegment('a'.repeat(161))).toBe(false);
    expect(fitsOneSegment('€'.repeat(80))).toBe(true);
    expect(fitsOneSegment('€'.repeat(81))).toBe(false);
  });

  it('allows 70 UTF-16 units once any character is outside GSM-7', () => {
    expect(fitsOneSegment(`क${'a'.repeat(69)}`)).toBe(true);
    expect(fitsOneSegment(`क${'a'.repeat(70)}`)).toBe(false);
  });
});
