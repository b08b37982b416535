import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsOneSegment } from '../../shared/messages/gsm7';
import { fitSms } from '../../shared/messages/sms';

const devanagari = fc.string({
  unit: fc.integer({ min: 0x900, max: 0x97f }).map((c) => String.fromCodePoint(c)),
});
const anyText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  devanagari,
);

/** True when the text holds a lone surrogate (a character cut in half). */
function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

describe('Function: fitSms', () => {
  it('keeps a short GSM-7 text as it is', () => {
    expect(fitSms('FIRING too-many-ringing: 6 ringing > 5')).toBe(
      'FIRING too-many-ringing: 6 ringing > 5',
    );
  });

  it('cuts a long GSM-7 text to 160 septets ending in three dots', () => {
    const sms = fitSms(`FIRING rule: ${'x'.repeat(300)}`);
    expect(sms).toHaveLength(160);
    expect(sms.endsWith('...')).toBe(true);
  });

  it('counts extension characters twice when cutting', () => {
    const sms = fitSms('€'.repeat(200));
    expect(sms).toBe(`${'€'.repeat(78)}...`);
  });

  it('cuts Devanagari at a grapheme boundary within 70 units', () => {
    const sms = fitSms('एजेंट राजेश कुमार '.repeat(10));
    expect(sms.length).toBeLessThanOrEqual(70);
    expect(sms.endsWith('…')).toBe(true);
    const segments = [
      ...new Intl.Segmenter('hi', { granularity: 'grapheme' }).segment(sms.slice(0, -1)),
    ];
    expect(segments.map((s) => s.segment).join('')).toBe(sms.slice(0, -1));
  });

  it('prefers dropping a late non-GSM-7 tail when that keeps more of the message', () => {
    const sms = fitSms(
      `FIRING call-ringing-too-long: ${'call_time 00:02:10 > 00:01:30; '.repeat(3)}राजेश`,
    );
    expect(sms.endsWith('...')).toBe(true);
    expect(sms.length).toBeGreaterThan(70);
  });

  it('never splits an emoji', () => {
    const sms = fitSms(`a${'👍🏽'.repeat(40)}`);
    expect(hasLoneSurrogate(sms)).toBe(false);
    expect(sms.replace('…', '').replace('a', '')).toMatch(/^(👍🏽)*$/u);
  });

  it('fits one segment, one line, well-formed, for any text', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const sms = fitSms(`${a} ${b}`);
        expect(fitsOneSegment(sms)).toBe(true);
        expect(hasLoneSurrogate(sms)).toBe(false);
        expect(sms).not.toMatch(/[\r\n]/);
      }),
      { numRuns: 500 },
    );
  });
});
