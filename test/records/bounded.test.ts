import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedText, MAX_KEPT_LENGTH } from '../../shared/records/bounded';

describe('Function: boundedText', () => {
  it('keeps a text of at most MAX_KEPT_LENGTH characters as it is', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: MAX_KEPT_LENGTH }), (text) => {
        expect(boundedText(text)).toBe(text);
      }),
    );
  });

  it('shortens a longer text to its start and a digest, the same every time', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: MAX_KEPT_LENGTH + 1, maxLength: 2000 }),
        (text) => {
          const bounded = boundedText(text);
          expect(bounded.length).toBeLessThanOrEqual(MAX_KEPT_LENGTH);
          expect(bounded).toMatch(/…#[0-9a-z]+$/);
          expect(text.startsWith(bounded.slice(0, bounded.indexOf('…#')))).toBe(true);
          expect(boundedText(text)).toBe(bounded);
          expect(bounded.isWellFormed()).toBe(true);
        },
      ),
    );
  });

  it('keeps texts that differ anywhere apart', () => {
    const base = 'a'.repeat(5000);
    const variants = [base, `${base}b`, `b${base}`, `${base.slice(0, 2500)}b${base.slice(2501)}`];
    expect(new Set(variants.map(boundedText)).size).toBe(variants.length);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(95)}${'😀'.repeat(100)}`;
    expect(boundedText(text).isWellFormed()).toBe(true);
  });
});
