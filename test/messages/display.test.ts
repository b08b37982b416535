import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_LENGTH, shownValue } from '../../shared/messages/display';

describe('Function: shownValue', () => {
  it('shows a short printable value as it is', () => {
    expect(shownValue('Priya Sharma')).toBe('Priya Sharma');
    expect(shownValue('प्रिया')).toBe('प्रिया');
  });

  it('puts a value on one line, so it cannot add lines to an email', () => {
    expect(shownValue('x\nStatus:       resolved\r\ty')).toBe('x Status:       resolved  y');
  });

  it('cuts a long value and says how long it was', () => {
    const shown = shownValue('z'.repeat(100_000));
    expect(shown.length).toBeLessThanOrEqual(MAX_SHOWN_LENGTH);
    expect(shown).toMatch(/^z+… \(100000 characters\)$/);
  });

  it('counts the characters of a cut value as a person does, an emoji of several code points as one', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    expect(family.length).toBe(11);
    expect(shownValue(family.repeat(40))).toMatch(/… \(40 characters\)$/);
    expect(shownValue(`${'\u{1F600}'.repeat(150)}x`)).toMatch(/… \(151 characters\)$/);
  });

  it('is always one well-formed line of at most MAX_SHOWN_LENGTH characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (text) => {
        const shown = shownValue(text);
        expect(shown.length).toBeLessThanOrEqual(MAX_SHOWN_LENGTH);
        expect(shown.isWellFormed()).toBe(true);
        expect(shown).not.toMatch(/[\p{Cc}\p{Zl}\p{Zp}]/u);
      }),
      { numRuns: 2000 },
    );
  });
});
