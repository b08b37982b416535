import { describe, expect, it } from 'vitest';
import { QueryError } from '../../simulator/errors';
import { parsePaymentsQuery, parseQueryDate } from '../../simulator/query';
import { formatMonthWall } from '../../simulator/wallclock';

describe('Function: parseQueryDate', () => {
  it('reads Y-m-d H:i:s as wall-clock time in the zone', () => {
    expect(parseQueryDate('from_date', '2026-11-21 10:00:05', 'Asia/Kolkata', false)).toBe(
      Date.UTC(2026, 10, 21, 4, 30, 5),
    );
  });

  it('reads a bare date as the start of the day, or its last second for to_date', () => {
    expect(parseQueryDate('from_date', '2026-11-21', 'Asia/Kolkata', false)).toBe(
      Date.UTC(2026, 10, 20, 18, 30),
    );
    expect(parseQueryDate('to_date', '2026-11-21', 'Asia/Kolkata', true)).toBe(
      Date.UTC(2026, 10, 21, 18, 29, 59),
    );
  });

  it('ends a 23-hour DST day at its real last second', () => {
    // Europe/London springs forward on 2026-03-29: the day ends at 23:59:59 BST = 22:59:59Z.
    expect(parseQueryDate('to_date', '2026-03-29', 'Europe/London', true)).toBe(
      Date.UTC(2026, 2, 29, 22, 59, 59),
    );
  });

  it.each(['2026-13-01', '2026-02-29', '2026-11-21 24:00:00', '21-Nov-2026', 'today'])(
    'refuses %s with a QueryError naming the parameter',
    (text) => {
      expect(() => parseQueryDate('to_date', text, 'Asia/Kolkata', true)).toThrow(QueryError);
      expect(() => parseQueryDate('to_date', text, 'Asia/Kolkata', true)).toThrow(/^to_date: /);
    },
  );
});

describe('Function: parsePaymentsQuery', () => {
  it('treats empty parameters as absent', () => {
    expect(parsePaymentsQuery(new URLSearchParams('amount=&operator=&from_date='), 'UTC')).toEqual(
      {},
    );
  });

  it('decodes a URL-encoded <> operator', () => {
    const filter = parsePaymentsQuery(new URLSearchParams('amount=5&operator=%3C%3E'), 'UTC');
    expect(filter.amount?.operator).toBe('<>');
  });
});

describe('Function: formatMonthWall', () => {
  it('writes DD-Mon-YYYY HH:MM:SS in the zone, DST included', () => {
    expect(formatMonthWall(Date.UTC(2026, 10, 21, 4, 30, 5), 'Asia/Kolkata')).toBe(
      '21-Nov-2026 10:00:05',
    );
    expect(formatMonthWall(Date.UTC(2026, 6, 1, 8, 0, 0), 'Europe/London')).toBe(
      '01-Jul-2026 09:00:00',
    );
  });
});
