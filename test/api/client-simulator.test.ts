import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import { TelephonyClient, type TelephonyClientOptions } from '../../shared/api/client';
import {
  ApiAuthError,
  ApiBodyError,
  type ApiError,
  ApiHttpError,
  ApiRateLimitError,
  ApiTimeoutError,
} from '../../shared/api/errors';
import type { Endpoint, LiveCallsQuery, PaymentsQuery, TokenSource } from '../../shared/api/types';
import { readIdentity } from '../../shared/records/normalise';
import type { ParsedBatch } from '../../shared/records/types';
import type { Operator } from '../../shared/types/config';
import { ManualClock } from '../../simulator/clock';
import type { Fault } from '../../simulator/faults';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

/** Distinctive, so finding it anywhere it should not be is unambiguous. */
const TOKEN = 'tok-SECRET-5f2c9a77e1';
const START_MS = Date.UTC(2026, 10, 21, 4, 30, 0);
const MINUTE = 60_000;
const PAYMENTS_PATH = '/v1/billing/payments/online';

const tokenSource = (token = TOKEN): TokenSource => ({
  get: async () => token,
  invalidate: () => {},
});

let sim: RunningSimulator;
let consoleSpies: MockInstance[] = [];

beforeAll(async () => {
  const clock = new ManualClock(START_MS);
  sim = await startSimulator({ clock, token: TOKEN, scenario: 'busy-evening', seed: 11 });
  // Two and a half hours in: many payments, and a ringing spike live.
  clock.advance(150 * MINUTE + 90_000);
});
afterAll(() => sim.close());

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
beforeAll(() => {
  consoleSpies = CONSOLE_METHODS.map((method) => vi.spyOn(console, method));
});
afterEach(() => {
  sim.setFault('live_calls', undefined);
  sim.setFault('payments', undefined);
  sim.setToken(TOKEN);
});
afterAll(() => {
  // Nothing the client (or the simulator) printed may carry the token.
  const printed = JSON.stringify(consoleSpies.map((spy) => spy.mock.calls));
  expect(printed).not.toContain(TOKEN);
  for (const spy of consoleSpies) spy.mockRestore();
});

function client(options: Partial<TelephonyClientOptions> = {}): TelephonyClient {
  return new TelephonyClient({
    baseUrl: sim.url,
    tokenSource: tokenSource(),
    timeoutMs: 5_000,
    maxAttempts: 3,
    backoff: { baseMs: 1, capMs: 5 },
    ...options,
  });
}

const deadline = (ms = 15_000) => ({ deadlineMs: Date.now() + ms });

/** The raw answer to the same query, straight over HTTP. */
async function rawKeys(endpoint: Endpoint, query: Record<string, string>): Promise<string[]> {
  const path = endpoint === 'live_calls' ? '/v1/live_calls' : PAYMENTS_PATH;
  const response = await fetch(`${sim.url}${path}?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const records = (await response.json()) as Record<string, unknown>[];
  // The identity as the parser reads it (a decimal-shaped id loses its trailing zeros).
  return records
    .map((r) => readIdentity(endpoint === 'live_calls' ? r.call_id : r.id) ?? '')
    .sort();
}

const keys = (batch: ParsedBatch): string[] =>
  batch.records
    .toArray()
    .map((r) => r.key)
    .sort();

/** Runs a request expected to fail; returns the error after checking it keeps the token out. */
async function failure(request: Promise<unknown>): Promise<ApiError> {
  const error = await request.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error('expected the request to fail');
  const serialised = [
    JSON.stringify(error),
    String(error),
    error.message,
    error.stack ?? '',
    JSON.stringify(
      Object.getOwnPropertyNames(error).map((name) => String(Reflect.get(error, name))),
    ),
    String(error.cause ?? ''),
    error.cause instanceof Error ? (error.cause.stack ?? '') : '',
  ].join('\n');
  expect(serialised).not.toContain(TOKEN);
  return error as ApiError;
}

describe('Class: TelephonyClient against the simulator', () => {
  describe('Method: liveCalls', () => {
    it('fetches every live call, parsed, none skipped', async () => {
      const batch = await client().liveCalls({}, deadline());
      expect(batch.records.length).toBeGreaterThan(10);
      expect(batch.skipped).toBe(0);
      expect(keys(batch)).toEqual(await rawKeys('live_calls', {}));
    });

    it.each<[string, LiveCallsQuery]>([
      ['did_number', { did_number: '08000000001' }],
      ['agent_number', { agent_number: '919876500002' }],
      ['extension', { extension: '104' }],
    ])('filters by %s on the server', async (_name, query) => {
      const batch = await client().liveCalls(query, deadline());
      const expected = await rawKeys('live_calls', query as Record<string, string>);
      expect(expected.length).toBeGreaterThan(0);
      expect(keys(batch)).toEqual(expected);
      expect(sim.requests.at(-2)?.query).toEqual(query);
    });

    it('filters by call_id', async () => {
      const all = await client().liveCalls({}, deadline());
      const callId = all.records.toArray()[2]?.key ?? '';
      const batch = await client().liveCalls({ call_id: callId }, deadline());
      expect(batch.records.length).toBeGreaterThan(0);
      expect(batch.records.toArray().every((r) => r.key === callId)).toBe(true);
    });
  });

  describe('Method: payments', () => {
    it.each<[string, PaymentsQuery]>([
      ['a Y-m-d H:i:s range', { from_date: '2026-11-21 10:30:00', to_date: '2026-11-21 11:45:30' }],
      ['a yyyy-mm-dd range', { from_date: '2026-11-21', to_date: '2026-11-21' }],
      ['a range before any payment', { to_date: '2026-11-20 23:59:59' }],
    ])('filters by %s', async (_name, query) => {
      const batch = await client().payments(query, deadline());
      expect(batch.skipped).toBe(0);
      expect(keys(batch)).toEqual(await rawKeys('payments', query as Record<string, string>));
    });

    it('reads every created_at as IST wall-clock time inside the asked range', async () => {
      const from = Date.UTC(2026, 10, 21, 5, 0, 0);
      const to = Date.UTC(2026, 10, 21, 6, 15, 30);
      const batch = await client().payments(
        { from_date: '2026-11-21 10:30:00', to_date: '2026-11-21 11:45:30' },
        deadline(),
      );
      expect(batch.records.length).toBeGreaterThan(0);
      for (const record of batch.records.toArray()) {
        expect(record.createdAtMs).toBeGreaterThanOrEqual(from);
        expect(record.createdAtMs).toBeLessThanOrEqual(to);
      }
    });

    it.each<Operator>(['>', '<', '>=', '<=', '<>'])(
      'filters by amount with %s, compared exactly',
      async (operator) => {
        const all = await client().payments({}, deadline());
        const pivot = String(all.records.toArray()[5]?.fields.amount_paid);
        const query = { amount: `${pivot}${pivot.includes('.') ? '0' : '.00'}`, operator };
        const batch = await client().payments(query, deadline());
        expect(keys(batch)).toEqual(await rawKeys('payments', query));
        const hasPivot = batch.records.toArray().some((r) => r.fields.amount_paid === pivot);
        expect(hasPivot).toBe(operator === '>=' || operator === '<=');
      },
    );
  });

  describe('Faults', () => {
    it.each([500, 502, 503] as const)(
      'raises ApiHttpError with status %i after the retries',
      async (status) => {
        sim.setFault('payments', { kind: 'status', status });
        const before = sim.requests.length;
        const error = await failure(client().payments({}, deadline()));
        expect(error).toBeInstanceOf(ApiHttpError);
        expect(error).toMatchObject({ endpoint: 'payments', status });
        expect(sim.requests.length - before).toBe(3);
      },
    );

    it('succeeds on a retry after one 500', async () => {
      sim.setFault('live_calls', { kind: 'status', status: 500, times: 1 });
      const batch = await client().liveCalls({}, deadline());
      expect(batch.records.length).toBeGreaterThan(0);
      expect(sim.requests.slice(-2).map((r) => r.status)).toEqual([500, 200]);
    });

    it.each([401, 403] as const)('raises ApiAuthError on %i without retrying', async (status) => {
      sim.setFault('live_calls', { kind: 'status', status });
      const before = sim.requests.length;
      const error = await failure(client().liveCalls({}, deadline()));
      expect(error).toBeInstanceOf(ApiAuthError);
      expect(error.status).toBe(status);
      expect(sim.requests.length - before).toBe(1);
    });

    it('raises ApiAuthError for a token the API does not accept', async () => {
      sim.setToken('the-new-token');
      const error = await failure(client().payments({}, deadline()));
      expect(error).toBeInstanceOf(ApiAuthError);
      expect(error).toMatchObject({ status: 403, endpoint: 'payments' });
    });

    it('retries with a fresh token after a rotation', async () => {
      sim.setToken('rotated-token-xyz');
      let current = TOKEN;
      const rotating: TokenSource = {
        get: async () => current,
        invalidate: () => {
          current = 'rotated-token-xyz';
        },
      };
      const batch = await client({ tokenSource: rotating }).liveCalls({}, deadline());
      expect(batch.records.length).toBeGreaterThan(0);
    });

    it('retries after a 429 once the Retry-After time has passed', async () => {
      sim.setFault('payments', { kind: 'rate-limit', retryAfterSeconds: 0, times: 1 });
      const batch = await client().payments({}, deadline());
      expect(batch.records.length).toBeGreaterThan(0);
      expect(sim.requests.slice(-2).map((r) => r.status)).toEqual([429, 200]);
    });

    it('raises ApiRateLimitError when the Retry-After time does not fit the budget', async () => {
      sim.setFault('payments', { kind: 'rate-limit', retryAfterSeconds: 120 });
      const error = await failure(client().payments({}, deadline(5_000)));
      expect(error).toBeInstanceOf(ApiRateLimitError);
      expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    });

    it('answers a slow request that fits the timeout', async () => {
      sim.setFault('live_calls', { kind: 'slow', delayMs: 100 });
      const batch = await client().liveCalls({}, deadline());
      expect(batch.records.length).toBeGreaterThan(0);
    });

    it.each<[string, Fault]>([
      ['a hang', { kind: 'hang' }],
      ['a slow answer past the timeout', { kind: 'slow', delayMs: 3_000 }],
    ])('raises ApiTimeoutError on %s', async (_name, fault) => {
      sim.setFault('live_calls', fault);
      const error = await failure(
        client({ timeoutMs: 150, maxAttempts: 2 }).liveCalls({}, deadline()),
      );
      expect(error).toBeInstanceOf(ApiTimeoutError);
      expect(error.endpoint).toBe('live_calls');
    });

    it.each<[string, Fault]>([
      ['malformed JSON', { kind: 'malformed-json' }],
      ['an HTML page with 200', { kind: 'html', status: 200 }],
      ['a truncated array', { kind: 'truncated' }],
    ])('raises ApiBodyError on %s', async (_name, fault) => {
      sim.setFault('payments', fault);
      const error = await failure(client().payments({}, deadline()));
      expect(error).toBeInstanceOf(ApiBodyError);
      expect(error.status).toBe(200);
    });

    it('raises ApiHttpError on an HTML page with 502', async () => {
      sim.setFault('live_calls', { kind: 'html', status: 502 });
      const error = await failure(client().liveCalls({}, deadline()));
      expect(error).toBeInstanceOf(ApiHttpError);
      expect(error.status).toBe(502);
    });

    it.each<Endpoint>(['live_calls', 'payments'])(
      'skips and counts wrong-typed %s records, keeping the good ones',
      async (endpoint) => {
        const good = await client().request({ endpoint, query: {} }, deadline());
        sim.setFault(endpoint, { kind: 'wrong-types' });
        const batch = await client().request({ endpoint, query: {} }, deadline());
        expect(batch.skipped).toBeGreaterThan(0);
        expect(keys(batch)).toEqual(expect.arrayContaining(keys(good)));
        expect(JSON.stringify(batch.skipReasons)).not.toContain(TOKEN);
      },
    );

    it('answers an empty batch for []', async () => {
      sim.setFault('live_calls', { kind: 'empty' });
      const batch = await client().liveCalls({}, deadline());
      expect(batch).toMatchObject({ skipped: 0 });
      expect(batch.records.length).toBe(0);
    });

    it('parses a large answer of 100k payments', async () => {
      sim.setFault('payments', { kind: 'large', count: 100_000 });
      const batch = await client({ timeoutMs: 30_000 }).payments({}, deadline(60_000));
      expect(batch.records).toHaveLength(100_000);
      expect(batch.skipped).toBe(0);
    }, 60_000);
  });
});
