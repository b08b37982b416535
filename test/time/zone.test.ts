import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeZoneError } from '../../shared/time/errors';
import {
  assertTimeZone,
  formatApiDateTime,
  formatInZone,
  isTimeZone,
  parseApiTimestamp,
  parseCallTime,
  zonedTimeToEpoch,
} from '../../shared/time/zone';

const ZONES = [
  'Asia/Kolkata',
  'UTC',
  'America/New_York',
  'Europe/London',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
];

describe('Function: assertTimeZone', () => {
  it('accepts IANA zones', () => {
    expect(() => assertTimeZone('Asia/Kolkata')).not.toThrow();
    expect(isTimeZone('Europe/London')).toBe(true);
  });

  it('throws TimeZoneError for a name that is not a zone', () => {
    expect(() => assertTimeZone('Mars/Olympus')).toThrow(TimeZoneError);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('Function: parseApiTimestamp', () => {
  it('reads the API shapes by character codes as the general path does', () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const year = fc.constantFrom('2024', '2026', '1999', '0000', '2100');
    const month = fc.constantFrom('Nov', 'MAR', 'oct', 'Sep', 'Xyz', 'jun', 'FEB', 'mar');
    const time = fc.tuple(two(25), two(61), two(61)).map((parts) => parts.join(':'));
    const separator = fc.constantFrom(' ', 'T', '_');
    const iso = fc
      .tuple(year, two(13), two(32), separator, time)
      .map(([y, m, d, sep, t]) => `${y}-${m}-${d}${sep}${t}`);
    const named = fc
      .tuple(two(32), month, year, separator, time)
      .map(([d, m, y, sep, t]) => `${d}-${m}-${y}${sep}${t}`);
    fc.assert(
      fc.property(fc.oneof(iso, named), fc.constantFrom(...ZONES), (text, zone) => {
        // A leading space is trimmed by the general path and skips the fixed-width one.
        expect(parseApiTimestamp(text, zone)).toBe(parseApiTimestamp(` ${text}`, zone));
      }),
      { numRuns: 4000 },
    );
  });

  it('reads a timestamp with its own offset as that instant, whatever the zone', () => {
    const instant = Date.parse('2026-11-21T04:30:00Z');
    expect(parseApiTimestamp('2026-11-21T04:30:00Z', 'America/New_York')).toBe(instant);
    expect(parseApiTimestamp('2026-11-21 10:00:00+05:30', 'Europe/London')).toBe(instant);
    expect(parseApiTimestamp('2026-11-21T10:00:00.000+0530', 'Asia/Kolkata')).toBe(instant);
  });

  it('refuses an offset timestamp naming a date or time that does not exist', () => {
    for (const text of [
      '2026-02-30T10:00:00Z',
      '2026-13-01T10:00:00Z',
      '2026-04-31 10:00:00+05:30',
      '2026-11-21T24:30:00Z',
      '2026-11-21T10:60:00Z',
    ]) {
      expect(parseApiTimestamp(text, 'Asia/Kolkata')).toBeUndefined();
    }
    expect(parseApiTimestamp('2028-02-29T10:00:00Z', 'Asia/Kolkata')).toBe(
      Date.parse('2028-02-29T10:00:00Z'),
    );
  });

  it('reads YYYY-MM-DD HH:MM:SS as India time by the zone given', () => {
    expect(parseApiTimestamp('2026-11-21 10:00:05', 'Asia/Kolkata')).toBe(
      Date.parse('2026-11-21T04:30:05Z'),
    );
  });

  it('reads DD-Mon-YYYY HH:MM:SS with the month name in any case', () => {
    const expected = Date.parse('2026-11-21T04:30:05Z');
    for (const text of [
      '21-Nov-2026 10:00:05',
      '21-NOV-2026 10:00:05',
      '21-nov-2026 10:00:05',
      '21-November-2026 10:00:05',
    ]) {
      expect(parseApiTimestamp(text, 'Asia/Kolkata')).toBe(expected);
    }
  });

  it('tolerates surrounding spaces, a T separator, missing seconds and a bare date', () => {
    expect(parseApiTimestamp(' 2026-01-02T03:04:05 ', 'UTC')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseApiTimestamp('2026-01-02 03:04', 'UTC')).toBe(Date.UTC(2026, 0, 2, 3, 4));
    expect(parseApiTimestamp('2026-01-02', 'UTC')).toBe(Date.UTC(2026, 0, 2));
  });

  it('returns undefined for text that is not a timestamp or an impossible date', () => {
    for (const text of [
      '',
      'yesterday',
      '2026-02-30 10:00:00',
      '2026-13-01 10:00:00',
      '2026-01-01 24:00:00',
      '2026-01-01 10:60:00',
      '32-Jan-2026 10:00:00',
      '01-Foo-2026 10:00:00',
    ]) {
      expect(parseApiTimestamp(text, 'UTC'), text).toBeUndefined();
    }
  });

  it('moves a time inside a spring-forward gap forward by the gap (New York)', () => {
    // 2026-03-08 02:30 does not exist in New York; it is read as 03:30 EDT.
    expect(parseApiTimestamp('2026-03-08 02:30:00', 'America/New_York')).toBe(
      Date.parse('2026-03-08T07:30:00Z'),
    );
    expect(formatApiDateTime(Date.parse('2026-03-08T07:30:00Z'), 'America/New_York')).toBe(
      '2026-03-08 03:30:00',
    );
  });

  it('reads an ambiguous fall-back time as its first occurrence (New York, London)', () => {
    expect(parseApiTimestamp('2026-11-01 01:30:00', 'America/New_York')).toBe(
      Date.parse('2026-11-01T05:30:00Z'),
    );
    expect(parseApiTimestamp('25-Oct-2026 01:30:00', 'Europe/London')).toBe(
      Date.parse('2026-10-25T00:30:00Z'),
    );
  });

  it('moves a time inside the London spring gap forward', () => {
    expect(parseApiTimestamp('2026-03-29 01:15:00', 'Europe/London')).toBe(
      Date.parse('2026-03-29T01:15:00Z'),
    );
  });

  it('reads times either side of a DST change with the offset in force', () => {
    expect(parseApiTimestamp('2026-07-01 12:00:00', 'Europe/London')).toBe(
      Date.parse('2026-07-01T11:00:00Z'),
    );
    expect(parseApiTimestamp('2026-12-01 12:00:00', 'Europe/London')).toBe(
      Date.parse('2026-12-01T12:00:00Z'),
    );
  });

  it('throws TimeZoneError for an unknown zone', () => {
    expect(() => parseApiTimestamp('2026-01-01 00:00:00', 'Nowhere/Land')).toThrow(TimeZoneError);
  });

  it('round-trips formatApiDateTime for every instant that is not in a fall-back overlap', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2060, 0, 1) / 1000 }),
        (zone, seconds) => {
          const instant = seconds * 1000;
          const text = formatApiDateTime(instant, zone);
          const back = parseApiTimestamp(text, zone);
          expect(back).toBeDefined();
          // In an overlap the earlier occurrence is chosen: same wall clock, maybe an hour earlier.
          expect(formatApiDateTime(back ?? 0, zone)).toBe(text);
          expect(back).toBeLessThanOrEqual(instant);
          expect(instant - (back ?? 0)).toBeLessThanOrEqual(3_600_000);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads both shapes as the same instant for every valid wall clock', () => {
    const MONTHS = [
      'Jan',
      'Feb',
      'Mar',
      'Apr',
      'May',
      'Jun',
      'Jul',
      'Aug',
      'Sep',
      'Oct',
      'Nov',
      'Dec',
    ];
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1971-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        (date) => {
          const p = (n: number) => String(n).padStart(2, '0');
          const y = date.getUTCFullYear();
          const m = date.getUTCMonth();
          const time = `${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())}`;
          const iso = `${y}-${p(m + 1)}-${p(date.getUTCDate())} ${time}`;
          const named = `${p(date.getUTCDate())}-${MONTHS[m]}-${y} ${time}`;
          const expected = Math.floor(date.getTime() / 1000) * 1000;
          expect(parseApiTimestamp(iso, 'UTC')).toBe(expected);
          expect(parseApiTimestamp(named, 'UTC')).toBe(expected);
          expect(parseApiTimestamp(iso, 'Asia/Kolkata')).toBe(expected - 19_800_000);
        },
      ),
    );
  });
});

describe('Function: zonedTimeToEpoch', () => {
  it('reads a wall clock in a zone with a 45-minute offset', () => {
    expect(zonedTimeToEpoch('Asia/Kathmandu', 2026, 1, 1, 5, 45)).toBe(Date.UTC(2026, 0, 1));
  });
});

describe('Function: formatInZone', () => {
  it('writes the wall clock with the zone abbreviation for people', () => {
    const instant = Date.parse('2026-11-21T04:30:05Z');
    expect(formatInZone(instant, 'Asia/Kolkata')).toBe('2026-11-21 10:00:05 IST');
    expect(formatInZone(Date.parse('2026-07-01T11:00:00Z'), 'Europe/London')).toBe(
      '2026-07-01 12:00:00 BST',
    );
    expect(formatInZone(Date.parse('2026-07-01T16:00:00Z'), 'America/New_York')).toBe(
      '2026-07-01 12:00:00 EDT',
    );
    expect(formatInZone(Date.UTC(2026, 0, 1), 'Asia/Kathmandu')).toBe(
      '2026-01-01 05:45:00 GMT+5:45',
    );
  });
});

describe('Function: parseCallTime', () => {
  it('reads HH:MM:SS, MM:SS and plain seconds', () => {
    expect(parseCallTime('01:02:03')).toBe(3723);
    expect(parseCallTime('00:00:00')).toBe(0);
    expect(parseCallTime('25:00:00')).toBe(90_000);
    expect(parseCallTime('2:05')).toBe(125);
    expect(parseCallTime('75:30')).toBe(4530);
    expect(parseCallTime(' 42 ')).toBe(42);
    expect(parseCallTime(42)).toBe(42);
    expect(parseCallTime('42.9')).toBe(42);
  });

  it('returns undefined for unreadable or negative durations', () => {
    for (const input of ['', 'abc', '01:60:00', '01:00:60', '1:2:3:4', -1, '-5', null, {}, NaN]) {
      expect(parseCallTime(input), String(input)).toBeUndefined();
    }
  });

  it('reads every HH:MM:SS it could have written', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seconds) => {
        const h = Math.floor(seconds / 3600);
        const m = Math.floor((seconds % 3600) / 60);
        const s = seconds % 60;
        const p = (n: number) => String(n).padStart(2, '0');
        expect(parseCallTime(`${p(h)}:${p(m)}:${p(s)}`)).toBe(seconds);
        expect(parseCallTime(`${h * 60 + m}:${p(s)}`)).toBe(seconds);
        expect(parseCallTime(String(seconds))).toBe(seconds);
      }),
    );
  });
});
