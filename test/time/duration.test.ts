import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, tryParseDuration } from '../../shared/time/duration';
import { DurationFormatError } from '../../shared/time/errors';

describe('Function: parseDuration', () => {
  it('reads unit durations and HH:MM:SS as milliseconds', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('26:00:01')).toBe(93_601_000);
  });

  it('throws DurationFormatError naming the input otherwise', () => {
    expect(() => parseDuration('soon')).toThrow(DurationFormatError);
    expect(() => parseDuration('5 minutes')).toThrow(/5 minutes/);
    expect(tryParseDuration('-5m')).toBeUndefined();
  });

  it('reads every whole-unit duration it is given', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom(['s', 1000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000]),
        (n, [unit, ms]) => {
          expect(parseDuration(`${n}${unit}`)).toBe(n * (ms as number));
        },
      ),
    );
  });

  it('agrees between HH:MM:SS and seconds for every duration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (seconds) => {
        const p = (n: number) => String(n).padStart(2, '0');
        const text = `${p(Math.floor(seconds / 3600))}:${p(Math.floor((seconds % 3600) / 60))}:${p(seconds % 60)}`;
        expect(parseDuration(text)).toBe(parseDuration(`${seconds}s`));
      }),
    );
  });
});

describe('Function: formatDuration', () => {
  it('writes the two largest units for people', () => {
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(300_000)).toBe('5m');
    expect(formatDuration(7_500_000)).toBe('2h 5m');
    expect(formatDuration(97_200_000)).toBe('1d 3h');
    expect(formatDuration(0)).toBe('0s');
  });

  it('writes a duration parseDuration reads back exactly when it has one unit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.constantFrom(1000, 60_000, 3_600_000, 86_400_000),
        (n, unit) => {
          const ms = n * unit;
          const text = formatDuration(ms);
          const parts = text.split(' ');
          const total = parts.reduce((sum, part) => sum + parseDuration(part), 0);
          // Two units at most are written, so the remainder is below the smaller unit written.
          expect(total).toBeLessThanOrEqual(ms);
          if (parts.length === 1) expect(total).toBe(ms);
        },
      ),
    );
  });
});
