import { describe, expect, it } from 'vitest';
import type { TelephonyClientOptions } from '../../shared/api/client';
import { type AttemptEvent, TelephonyClient } from '../../shared/api/client';
import {
  ApiAuthError,
  ApiBodyError,
  ApiConfigError,
  ApiError,
  ApiHttpError,
  ApiNetworkError,
  ApiQueryError,
  ApiRateLimitError,
  ApiTimeoutError,
} from '../../shared/api/errors';
import { fakeTime, type Handler, hang, json, scriptedFetch, text, tokens } from './fakes';

const TOKEN = 'tok_SECRET_0123456789';
const payment = {
  id: '1',
  amount_paid: '100.50',
  payment_id: '',
  created_at: '21-Nov-2026 10:00:05',
  gateway: 'Razorpay',
  status: 'pending',
};

function setup(handlers: Handler[], overrides: Partial<TelephonyClientOptions> = {}) {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch(...handlers);
  const events: AttemptEvent[] = [];
  const tokenSource = tokens(TOKEN);
  const client = new TelephonyClient({
    baseUrl: 'https://api.example.com',
    tokenSource,
    fetch,
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    backoff: { baseMs: 200, capMs: 5000 },
    observer: (event) => events.push(event),
    ...overrides,
  });
  const deadlineMs = time.state.nowMs + 60_000;
  return { client, calls, time, events, tokenSource, deadlineMs };
}

const caught = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

/** Everything an error exposes: message, stack, own properties and the cause chain. */
function exposed(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify({ ...current }));
      if (current instanceof ApiError) parts.push(JSON.stringify(current.toPollFailure()));
      current = current.cause;
    } else {
      parts.push(JSON.stringify(current) ?? String(current));
      current = undefined;
    }
  }
  return parts.join('\n');
}

describe('Class: TelephonyClient', () => {
  it('asks the transport to keep money literals exact for payments only (live calls have no money field)', async () => {
    const asked: Record<string, boolean | undefined> = {};
    const client = new TelephonyClient({
      baseUrl: 'https://api.example.com',
      tokenSource: tokens(TOKEN),
      transport: async (url, _headers, _signal, onRows) => {
        asked[url.includes('live_calls') ? 'live_calls' : 'payments'] = onRows?.exactMoney;
        return { status: 200, header: () => undefined, body: { kind: 'array', rows: [] } };
      },
    });
    const deadlineMs = Date.now() + 60_000;
    await client.liveCalls({}, { deadlineMs });
    await client.payments({}, { deadlineMs });
    expect(asked).toEqual({ live_calls: false, payments: true });
  });

  describe('Method: request', () => {
    it('sends the accept and bearer headers and parses the records', async () => {
      const { client, calls, deadlineMs } = setup([json([payment])]);
      const batch = await client.payments({}, { deadlineMs });
      expect(batch.records.record(0).fields.amount_paid).toBe('100.5');
      expect(calls[0]?.url).toBe('https://api.example.com/v1/billing/payments/online');
      const headers = new Headers(calls[0]?.init.headers);
      expect(headers.get('accept')).toBe('application/json');
      expect(headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
      expect(calls[0]?.init.redirect).toBe('manual');
    });

    it('sends the live-call filters it is given', async () => {
      const { client, calls, deadlineMs } = setup([json([])]);
      const batch = await client.liveCalls({ did_number: '8000000001' }, { deadlineMs });
      expect(batch).toMatchObject({ skipped: 0, skipReasons: [] });
      expect(batch.records.length).toBe(0);
      expect(calls[0]?.url).toBe('https://api.example.com/v1/live_calls?did_number=8000000001');
    });

    it('retries a 5xx with full-jitter exponential backoff, then succeeds', async () => {
      const { client, calls, time, deadlineMs } = setup([
        json({ message: 'oops' }, 500),
        json({ message: 'oops' }, 503),
        json([payment]),
      ]);
      const batch = await client.payments({}, { deadlineMs });
      expect(batch.records).toHaveLength(1);
      expect(calls).toHaveLength(3);
      expect(time.state.sleeps).toEqual([100, 200]);
    });

    it('gives up after maxAttempts with an ApiHttpError carrying status and endpoint', async () => {
      const { client, calls, time, deadlineMs } = setup([json({ message: 'down' }, 500)]);
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiHttpError);
      expect(error).toMatchObject({ status: 500, endpoint: 'live_calls', attempts: 4 });
      expect((error as ApiHttpError).reason).toBe('server error: down');
      expect(calls).toHaveLength(4);
      expect(time.state.sleeps).toEqual([100, 200, 400]);
      expect((error as ApiHttpError).toPollFailure()).toEqual({
        kind: 'http',
        status: 500,
        message: 'live_calls: HTTP 500: server error: down',
      });
    });

    it('never sleeps past the deadline: it stops when the next wait would cross it', async () => {
      const { client, calls, time } = setup([json({}, 502)], { random: () => 0.99 });
      const deadlineMs = time.state.nowMs + 1000;
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiHttpError);
      // 198 and 396 ms fit (with 250 ms left for an attempt); 792 more would cross the deadline.
      expect(time.state.sleeps).toEqual([198, 396]);
      expect(calls).toHaveLength(3);
      expect(time.state.nowMs).toBeLessThanOrEqual(deadlineMs);
    });

    it('raises ApiTimeoutError without a request when the deadline has passed', async () => {
      const { client, calls, time } = setup([json([])]);
      const error = await caught(client.liveCalls({}, { deadlineMs: time.state.nowMs }));
      expect(error).toBeInstanceOf(ApiTimeoutError);
      expect(calls).toHaveLength(0);
    });

    it('retries network errors and reports the cause code', async () => {
      const refused: Handler = () => {
        throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
      };
      const { client, calls, deadlineMs } = setup([refused], { maxAttempts: 2 });
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiNetworkError);
      expect((error as ApiNetworkError).reason).toBe('fetch failed (ECONNREFUSED)');
      expect((error as ApiNetworkError).cause).toBeInstanceOf(Error);
      expect(calls).toHaveLength(2);
    });

    it('times out an attempt that never answers and retries it', async () => {
      const { client, calls, events, deadlineMs } = setup([hang, json([])], { timeoutMs: 20 });
      const batch = await client.liveCalls({}, { deadlineMs });
      expect(batch.records.length).toBe(0);
      expect(calls).toHaveLength(2);
      expect(events.map((e) => e.outcome)).toEqual(['timeout', 'ok']);
    });

    it('raises ApiTimeoutError once every attempt timed out', async () => {
      const { client, deadlineMs } = setup([hang], { timeoutMs: 10, maxAttempts: 2 });
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiTimeoutError);
      expect((error as ApiTimeoutError).reason).toBe('no answer within 10 ms');
    });

    it('does not retry when the caller cancels', async () => {
      const controller = new AbortController();
      const { client, calls, deadlineMs } = setup([
        (call) => {
          controller.abort();
          return hang(call, 0);
        },
      ]);
      const error = await caught(client.liveCalls({}, { deadlineMs, signal: controller.signal }));
      expect(error).toBeInstanceOf(ApiTimeoutError);
      expect((error as ApiTimeoutError).reason).toBe('cancelled by the caller');
      expect(calls).toHaveLength(1);
    });
  });

  describe('Option: sleep (the default)', () => {
    it('ends a wait between attempts when the caller cancels, without another attempt', async () => {
      const controller = new AbortController();
      const { fetch, calls } = scriptedFetch(json({ message: 'down' }, 503));
      const client = new TelephonyClient({
        baseUrl: 'https://api.example.com',
        tokenSource: tokens(TOKEN),
        fetch,
        random: () => 0.5,
        // Ten minutes between attempts: the test would time out waiting for the second.
        backoff: { baseMs: 1_200_000, capMs: 1_200_000 },
      });
      const asked = client.liveCalls(
        {},
        { deadlineMs: Date.now() + 3_600_000, signal: controller.signal },
      );
      setTimeout(() => controller.abort(), 20);
      const error = await caught(asked);
      expect(error).toBeInstanceOf(ApiHttpError);
      expect(calls).toHaveLength(1);
    });
  });

  describe('Method: request (429)', () => {
    it('waits the Retry-After seconds when they fit in the budget', async () => {
      const { client, time, deadlineMs } = setup([
        json({ message: 'slow down' }, 429, { 'retry-after': '2' }),
        json([]),
      ]);
      await client.liveCalls({}, { deadlineMs });
      expect(time.state.sleeps).toEqual([2000]);
    });

    it('reads a Retry-After HTTP date and a retry_after body field', async () => {
      const first = setup([]);
      const at = new Date(first.time.state.nowMs + 5000).toUTCString();
      const byDate = setup([json({}, 429, { 'retry-after': at }), json([])]);
      await byDate.client.liveCalls({}, { deadlineMs: byDate.deadlineMs });
      expect(byDate.time.state.sleeps).toEqual([5000]);
      const byBody = setup([json({ success: false, retry_after: 3 }, 429), json([])]);
      await byBody.client.liveCalls({}, { deadlineMs: byBody.deadlineMs });
      expect(byBody.time.state.sleeps).toEqual([3000]);
    });

    it('raises ApiRateLimitError when the retry time does not fit in the budget', async () => {
      const { client, calls, time } = setup([json({}, 429, { 'retry-after': '120' })]);
      const error = await caught(client.liveCalls({}, { deadlineMs: time.state.nowMs + 10_000 }));
      expect(error).toBeInstanceOf(ApiRateLimitError);
      expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000 });
      expect((error as ApiRateLimitError).toPollFailure().kind).toBe('rate-limited');
      expect(time.state.sleeps).toEqual([]);
      expect(calls).toHaveLength(1);
    });

    it('backs off like a 5xx when a 429 names no retry time', async () => {
      const { client, time, deadlineMs } = setup([json({}, 429), json([])]);
      await client.liveCalls({}, { deadlineMs });
      expect(time.state.sleeps).toEqual([100]);
    });
  });

  describe('Method: request (auth)', () => {
    it('raises ApiAuthError on 403 without retrying the same token', async () => {
      const { client, calls, tokenSource, deadlineMs } = setup([
        json({ success: false, message: 'Unauthorized' }, 403),
      ]);
      const error = await caught(client.payments({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiAuthError);
      expect(error).toMatchObject({
        status: 403,
        endpoint: 'payments',
        reason: 'token rejected: Unauthorized',
      });
      expect(tokenSource.invalidations).toBe(1);
      expect(calls).toHaveLength(1);
    });

    it('retries once with a rotated token after a 401', async () => {
      const rotated = tokens('old-token', 'new-token');
      const { client, calls, deadlineMs } = setup([json({}, 401), json([])], {
        tokenSource: rotated,
      });
      await client.liveCalls({}, { deadlineMs });
      expect(calls.map((c) => new Headers(c.init.headers).get('authorization'))).toEqual([
        'Bearer old-token',
        'Bearer new-token',
      ]);
    });

    it('retries the auth failure only once even when the token keeps changing', async () => {
      const rotating = tokens('a-token', 'b-token', 'c-token');
      const { client, calls, deadlineMs } = setup([json({}, 403)], { tokenSource: rotating });
      await expect(client.liveCalls({}, { deadlineMs })).rejects.toBeInstanceOf(ApiAuthError);
      expect(calls).toHaveLength(2);
    });

    it('raises ApiAuthError for an empty token without calling the API', async () => {
      const { client, calls, deadlineMs } = setup([json([])], { tokenSource: tokens('  ') });
      await expect(client.liveCalls({}, { deadlineMs })).rejects.toBeInstanceOf(ApiAuthError);
      expect(calls).toHaveLength(0);
    });
  });

  describe('Method: request (bodies)', () => {
    it.each([
      ['an HTML error page', text('<html><body>502 Bad Gateway</body></html>'), 'an HTML page'],
      ['truncated JSON', text('[{"id": "1", "amount_p'), 'malformed or truncated JSON'],
      ['an empty body', text(''), 'empty body'],
      [
        'an error object',
        json({ success: false, message: 'Invalid date' }),
        'expected a JSON array of records, got an object (the API said: Invalid date)',
      ],
    ])('raises ApiBodyError for %s, without retrying', async (_name, handler, reason) => {
      const { client, calls, deadlineMs } = setup([handler]);
      const error = await caught(client.payments({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiBodyError);
      expect((error as ApiBodyError).reason).toContain(reason);
      expect((error as ApiBodyError).toPollFailure()).toMatchObject({ kind: 'body', status: 200 });
      expect(calls).toHaveLength(1);
    });

    it('counts records it cannot understand instead of failing the batch', async () => {
      const { client, deadlineMs } = setup([json([payment, 'junk', { amount_paid: '5' }])]);
      const batch = await client.payments({}, { deadlineMs });
      expect(batch.records).toHaveLength(1);
      expect(batch.skipped).toBe(2);
    });

    it('raises a final ApiHttpError for a 4xx and for a redirect', async () => {
      for (const [status, reason] of [
        [400, 'request refused: bad operator'],
        [302, 'unexpected redirect (not followed)'],
      ] as const) {
        const { client, calls, deadlineMs } = setup([json({ message: 'bad operator' }, status)]);
        const error = await caught(client.liveCalls({}, { deadlineMs }));
        expect(error).toBeInstanceOf(ApiHttpError);
        expect(error).toMatchObject({ status, reason });
        expect(calls).toHaveLength(1);
      }
    });
  });

  describe('Token redaction', () => {
    const echo =
      (status: number): Handler =>
      (call) => {
        const auth = new Headers(call.init.headers).get('authorization') ?? '';
        return json({ success: false, message: `bad header ${auth}` }, status)();
      };
    const throwing: Handler = (call) => {
      const auth = new Headers(call.init.headers).get('authorization') ?? '';
      throw new TypeError(`fetch failed with ${auth}`, { cause: new Error(auth) });
    };

    it.each([
      ['a 403 body', echo(403)],
      ['a 500 body', echo(500)],
      ['a 400 body', echo(400)],
      ['a 200 object body', echo(200)],
      ['a network error', throwing],
    ])('keeps the token out of the error for %s', async (_name, handler) => {
      const { client, events, deadlineMs } = setup([handler], { maxAttempts: 1 });
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiError);
      const all = exposed(error);
      expect(all).not.toContain(TOKEN);
      expect(all).toContain('[redacted]');
      expect(JSON.stringify(events)).not.toContain(TOKEN);
    });

    it('redacts a very short token where it stands whole, leaving the words around it intact', async () => {
      const { client, deadlineMs } = setup([echo(403)], {
        maxAttempts: 1,
        tokenSource: tokens('e'),
      });
      const error = await caught(client.liveCalls({}, { deadlineMs }));
      expect(error).toBeInstanceOf(ApiAuthError);
      expect((error as ApiAuthError).reason).toContain('bad header Bearer [redacted]');
      expect(exposed(error)).not.toMatch(/Bearer e\b/);
    });
  });

  describe('Observer', () => {
    it('reports every attempt with endpoint, status, duration and outcome', async () => {
      const { client, events, deadlineMs } = setup([json({}, 500), json([])]);
      await client.liveCalls({}, { deadlineMs });
      expect(events).toEqual([
        { endpoint: 'live_calls', attempt: 1, status: 500, durationMs: 0, outcome: 'http' },
        { endpoint: 'live_calls', attempt: 2, status: 200, durationMs: 0, outcome: 'ok' },
      ]);
    });

    it('ignores an observer that throws', async () => {
      const { client, deadlineMs } = setup([json([])], {
        observer: () => {
          throw new Error('metrics down');
        },
      });
      await expect(client.liveCalls({}, { deadlineMs })).resolves.toMatchObject({ skipped: 0 });
    });
  });

  describe('Constructor', () => {
    it('throws ApiConfigError for plain http to a remote host', () => {
      expect(() => setup([], { baseUrl: 'http://api.example.com' })).toThrow(ApiConfigError);
    });

    it('rejects a half amount comparison before calling the API', async () => {
      const { client, calls, deadlineMs } = setup([json([])]);
      await expect(client.payments({ amount: '5' }, { deadlineMs })).rejects.toBeInstanceOf(
        ApiQueryError,
      );
      expect(calls).toHaveLength(0);
    });
  });
});
