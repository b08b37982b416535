import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, retryAfterFromBody } from '../../shared/api/retry';

describe('Function: backoffDelay', () => {
  it('stays within [0, min(cap, base * 2^retry)) for every retry and dice roll', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, roll) => {
          const delay = backoffDelay(retry, { baseMs: 200, capMs: 5000 }, () => roll);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.min(5000, 200 * 2 ** retry));
        },
      ),
    );
  });

  it('doubles the ceiling per retry until the cap', () => {
    const top = (retry: number) => backoffDelay(retry, { baseMs: 100, capMs: 1000 }, () => 0.5);
    expect([0, 1, 2, 3, 4, 5].map(top)).toEqual([50, 100, 200, 400, 500, 500]);
  });
});

describe('Function: parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  it('reads delay-seconds and HTTP dates as milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('returns undefined when absent or unreadable', () => {
    for (const header of [null, undefined, '', 'soon', '-5']) {
      expect(parseRetryAfter(header, now)).toBeUndefined();
    }
  });
});

describe('Function: retryAfterFromBody', () => {
  it('reads a retry time from the JSON body fields clients meet', () => {
    expect(retryAfterFromBody({ retry_after: 30 }, 0)).toBe(30_000);
    expect(retryAfterFromBody({ retryAfter: '2' }, 0)).toBe(2000);
    expect(retryAfterFromBody({ success: false, message: 'slow down' }, 0)).toBeUndefined();
    expect(retryAfterFromBody([1], 0)).toBeUndefined();
    expect(retryAfterFromBody({ retry_after: -1 }, 0)).toBeUndefined();
  });
});
