import { describe, expect, it } from 'vitest';
import { ApiConfigError, ApiQueryError } from '../../shared/api/errors';
import { requestUrl, validateBaseUrl } from '../../shared/api/url';

describe('Function: validateBaseUrl', () => {
  it('accepts https anywhere and http on loopback hosts', () => {
    expect(validateBaseUrl('https://api.example.com/')).toBe('https://api.example.com');
    expect(validateBaseUrl('https://panel.example.in/api/')).toBe('https://panel.example.in/api');
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.1.2.3',
      'http://localhost:3000',
      'http://[::1]:9000',
    ]) {
      expect(() => validateBaseUrl(url), url).not.toThrow();
    }
  });

  it('throws ApiConfigError for plain http elsewhere, other schemes, credentials and junk', () => {
    for (const url of [
      'http://api.example.com',
      'http://10.0.0.1',
      'http://127.0.0.1.example.com',
      // Resolved by DNS on many systems: only literal loopback and localhost itself count.
      'http://api.localhost:8080',
      'http://localhost.example.com',
      'ftp://api.example.com',
      'https://user:secret@api.example.com',
      'https://api.example.com/?token=x',
      'not a url',
    ]) {
      expect(() => validateBaseUrl(url), url).toThrow(ApiConfigError);
    }
  });

  it('never repeats credentials from the URL in its message', () => {
    expect(() => validateBaseUrl('https://user:s3cr3t@api.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cr3t') }),
    );
  });
});

describe('Function: requestUrl', () => {
  const base = 'https://api.example.com';

  it('puts every live-call filter in the query and leaves empty ones out', () => {
    const url = requestUrl(base, {
      endpoint: 'live_calls',
      query: { agent_number: '+918000000001', extension: '101', did_number: ' ', call_id: 'c 1' },
    });
    expect(url).toBe(
      'https://api.example.com/v1/live_calls?agent_number=%2B918000000001&extension=101&call_id=c+1',
    );
    expect(requestUrl(base, { endpoint: 'live_calls', query: {} })).toBe(
      'https://api.example.com/v1/live_calls',
    );
  });

  it('encodes the payments date range and amount comparison', () => {
    const url = new URL(
      requestUrl(base, {
        endpoint: 'payments',
        query: {
          from_date: '2026-11-20 10:00:00',
          to_date: '2026-11-21',
          amount: '100000.10',
          operator: '>=',
        },
      }),
    );
    expect(url.pathname).toBe('/v1/billing/payments/online');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      from_date: '2026-11-20 10:00:00',
      to_date: '2026-11-21',
      amount: '100000.10',
      operator: '>=',
    });
  });

  it('throws ApiQueryError for half an amount comparison, a bad operator or a bad date', () => {
    const bad = [
      { amount: '5' },
      { operator: '>' as const },
      { amount: '5', operator: '=' as never },
      { amount: 'five', operator: '>' as const },
      { from_date: '21-11-2026' },
    ];
    for (const query of bad) {
      expect(
        () => requestUrl(base, { endpoint: 'payments', query }),
        JSON.stringify(query),
      ).toThrow(ApiQueryError);
    }
  });
});
