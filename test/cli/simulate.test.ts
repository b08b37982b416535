import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main';
import { memoryIo } from './io';

/** Starts `simulate` and waits for the URL it announces on stderr. */
async function startSimulate(argv: string[]) {
  const io = memoryIo();
  const exit = runCli(['simulate', '--port', '0', ...argv], io);
  const url = await vi.waitFor(
    () => {
      const found = /simulator: (http:\/\/127\.0\.0\.1:\d+) /.exec(io.err())?.[1];
      if (!found) throw new Error('simulator not started yet');
      return found;
    },
    { timeout: 30_000, interval: 20 },
  );
  return { io, exit, url };
}

describe('Command: simulate', () => {
  it('answers /v1/live_calls with its token on loopback and stops on Ctrl-C', async () => {
    const { io, exit, url } = await startSimulate([
      '--token',
      'local-token',
      '--scenario',
      'quiet',
    ]);
    const answer = await fetch(`${url}/v1/live_calls`, {
      headers: { authorization: 'Bearer local-token', accept: 'application/json' },
    });
    expect(answer.status).toBe(200);
    expect(Array.isArray(await answer.json())).toBe(true);
    const refused = await fetch(`${url}/v1/live_calls`, {
      headers: { authorization: 'Bearer another' },
    });
    expect([401, 403]).toContain(refused.status);
    await refused.text();

    io.stop();
    expect(await exit).toBe(0);
    expect(io.err()).toMatch(/scenario quiet/);
    expect(io.err()).toMatch(/simulator: stopped\n$/);
    await expect(fetch(`${url}/v1/live_calls`)).rejects.toThrow();
  }, 60_000);

  it('accepts the default token sim-token when --token is not given', async () => {
    const { io, exit, url } = await startSimulate([]);
    const answer = await fetch(`${url}/v1/billing/payments/online`, {
      headers: { authorization: 'Bearer sim-token' },
    });
    expect(answer.status).toBe(200);
    await answer.text();
    io.stop();
    expect(await exit).toBe(0);
    expect(io.err()).toMatch(/scenario busy-evening, seed 1, 1x/);
  }, 60_000);

  it('injects the --fault given per endpoint and leaves the other endpoint healthy', async () => {
    const { io, exit, url } = await startSimulate([
      '--fault',
      'live_calls=status:500',
      '--fault',
      'payments=rate-limit:30',
    ]);
    const headers = { authorization: 'Bearer sim-token' };
    const calls = await fetch(`${url}/v1/live_calls`, { headers });
    expect(calls.status).toBe(500);
    await calls.text();
    const payments = await fetch(`${url}/v1/billing/payments/online`, { headers });
    expect(payments.status).toBe(429);
    expect(payments.headers.get('retry-after')).toBe('30');
    await payments.text();
    io.stop();
    expect(await exit).toBe(0);
    expect(io.err()).toMatch(/fault on live_calls: \{"kind":"status","status":500\}/);
  }, 60_000);

  it.each([
    ['calls=status:500', /the endpoint is live_calls or payments/],
    ['live_calls=status:404', /status is one of 500, 403, 401, 502, 503/],
    ['live_calls=slow', /slow needs the delay in milliseconds/],
    ['payments=explode', /unknown fault "explode"/],
  ])('exits 2 with the reason for --fault %s', async (fault, reason) => {
    const io = memoryIo();
    expect(await runCli(['simulate', '--port', '0', '--fault', fault], io)).toBe(2);
    expect(io.err()).toMatch(reason);
  });

  it('exits 2 for an empty --token without starting', async () => {
    const io = memoryIo();
    expect(await runCli(['simulate', '--port', '0', '--token', ' '], io)).toBe(2);
    expect(io.err()).toMatch(/--token must not be empty/);
  });
});
