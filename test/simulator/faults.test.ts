import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../simulator/clock';
import { FaultBoard } from '../../simulator/faults';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { get, MINUTE, START_MS } from './helpers';

const PAYMENTS = '/v1/billing/payments/online';
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(): Promise<RunningSimulator> {
  const clock = new ManualClock(START_MS);
  sim = await startSimulator({ clock, scenario: 'stuck-payment' });
  clock.advance(30 * MINUTE);
  return sim;
}

describe('Class: FaultBoard', () => {
  it('applies a fault with times to that many requests, then clears it', () => {
    const board = new FaultBoard({ payments: { kind: 'empty', times: 2 } });
    expect(board.take('payments')?.kind).toBe('empty');
    expect(board.take('payments')?.kind).toBe('empty');
    expect(board.take('payments')).toBeUndefined();
    expect(board.take('live_calls')).toBeUndefined();
  });

  it('keeps a fault without times until it is replaced', () => {
    const board = new FaultBoard();
    board.set('live_calls', { kind: 'hang' });
    for (let i = 0; i < 5; i++) expect(board.take('live_calls')?.kind).toBe('hang');
    board.set('live_calls', undefined);
    expect(board.take('live_calls')).toBeUndefined();
  });
});

describe('Fault injection over HTTP', () => {
  it.each([500, 403, 401, 502, 503] as const)(
    'answers %i with a JSON error body',
    async (status) => {
      const running = await start();
      running.setFault('live_calls', { kind: 'status', status });
      const answer = await get(running, '/v1/live_calls');
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.text)).toMatchObject({ success: false });
    },
  );

  it('answers 429 with a Retry-After header', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'rate-limit', retryAfterSeconds: 7 });
    const answer = await get(running, PAYMENTS);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');
  });

  it('faults only the endpoint it was set on, only for its times', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'status', status: 503, times: 1 });
    expect((await get(running, '/v1/live_calls')).status).toBe(200);
    expect((await get(running, PAYMENTS)).status).toBe(503);
    expect((await get(running, PAYMENTS)).status).toBe(200);
  });

  it('answers the normal body after the delay of a slow fault', async () => {
    const running = await start();
    const normal = (await get(running, PAYMENTS)).text;
    running.setFault('payments', { kind: 'slow', delayMs: 50 });
    const answer = await get(running, PAYMENTS);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(normal);
  });

  it('never answers a hang, and close() still finishes and drops the connection', async () => {
    const running = await start();
    running.setFault('live_calls', { kind: 'hang' });
    const pending = get(running, '/v1/live_calls');
    const outcome = pending.then(
      () => 'answered',
      () => 'dropped',
    );
    await expect.poll(() => running.requests.length).toBe(1);
    expect(running.requests[0]?.status).toBe(0);
    await running.close();
    sim = undefined;
    expect(await outcome).toBe('dropped');
  });

  it('answers 200 with a body that is not JSON for malformed-json', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'malformed-json' });
    const answer = await get(running, PAYMENTS);
    expect(answer.status).toBe(200);
    expect(() => JSON.parse(answer.text)).toThrow();
  });

  it.each([200, 502] as const)('answers an HTML error page with %i', async (status) => {
    const running = await start();
    running.setFault('live_calls', { kind: 'html', status });
    const answer = await get(running, '/v1/live_calls');
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    expect(answer.text).toMatch(/^<!DOCTYPE html>/);
  });

  it('cuts the JSON array in the middle of a record for truncated', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'truncated' });
    const answer = await get(running, PAYMENTS);
    expect(answer.status).toBe(200);
    expect(answer.text.startsWith('[{')).toBe(true);
    expect(() => JSON.parse(answer.text)).toThrow();
    expect(answer.text.endsWith('}')).toBe(false);
  });

  it.each([
    ['payments', PAYMENTS, 'id'],
    ['live_calls', '/v1/live_calls', 'call_id'],
  ] as const)('mixes good %s records with wrong-typed ones', async (endpoint, path, key) => {
    const running = await start();
    const good = JSON.parse((await get(running, path)).text) as Record<string, unknown>[];
    running.setFault(endpoint, { kind: 'wrong-types' });
    const mixed = JSON.parse((await get(running, path)).text) as unknown[];
    const objects = mixed.filter(
      (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
    );
    expect(mixed.some((item) => typeof item !== 'object' || item === null)).toBe(true);
    expect(objects.some((item) => typeof item[key] === 'object')).toBe(true);
    for (const record of good) expect(mixed).toContainEqual(record);
  });

  it('answers [] for empty', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'empty' });
    expect(JSON.parse((await get(running, PAYMENTS)).text)).toEqual([]);
  });

  it('streams 100k payments for large', async () => {
    const running = await start();
    running.setFault('payments', { kind: 'large', count: 100_000 });
    const answer = await get(running, PAYMENTS);
    const records = JSON.parse(answer.text) as Record<string, unknown>[];
    expect(records).toHaveLength(100_000);
    expect(new Set(records.map((r) => String(r.id))).size).toBe(100_000);
    expect(records[99_999]).toMatchObject({
      created_at: expect.stringMatching(/^\d{2}-\w{3}-\d{4} /),
    });
  });
});
