import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../simulator/clock';
import { UnknownScenarioError } from '../../simulator/errors';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { get, MINUTE, START_MS } from './helpers';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(): Promise<RunningSimulator> {
  sim = await startSimulator({ clock: new ManualClock(START_MS), scenario: 'quiet' });
  return sim;
}

describe('Function: startSimulator', () => {
  it('listens on 127.0.0.1 on a free port', async () => {
    const running = await start();
    expect(running.port).toBeGreaterThan(0);
    expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
  });

  it('rejects an unknown scenario name, naming the known ones', async () => {
    await expect(startSimulator({ scenario: 'nope' as 'quiet' })).rejects.toThrow(
      UnknownScenarioError,
    );
    await expect(startSimulator({ scenario: 'nope' as 'quiet' })).rejects.toThrow(/busy-evening/);
  });

  it('rejects a zone that is not an IANA zone', async () => {
    await expect(startSimulator({ zone: 'Mars/Olympus' })).rejects.toThrow(/IANA/);
  });
});

describe('Bearer check', () => {
  it.each([['/v1/live_calls'], ['/v1/billing/payments/online']])(
    'answers %s with 200 for the right token',
    async (path) => {
      const running = await start();
      const answer = await get(running, path);
      expect(answer.status).toBe(200);
      expect(Array.isArray(JSON.parse(answer.text))).toBe(true);
    },
  );

  it('starts its scenario over from a later time on restartScenario, keeping its clock', async () => {
    const clock = new ManualClock(START_MS);
    sim = await startSimulator({ clock, scenario: 'busy-evening' });
    const spikeRinging = async () =>
      (
        JSON.parse((await get(sim as RunningSimulator, '/v1/live_calls')).text) as {
          did_number?: string;
        }[]
      ).length;
    clock.set(START_MS + 2 * MINUTE);
    const duringSpike = await spikeRinging();
    clock.set(START_MS + 20 * MINUTE);
    const afterSpike = await spikeRinging();
    expect(duringSpike).toBeGreaterThan(afterSpike);
    sim.restartScenario(START_MS + 18 * MINUTE);
    expect(await spikeRinging()).toBe(duringSpike);
    expect(sim.clock.now()).toBe(START_MS + 20 * MINUTE);
  });

  it('answers 403 with a JSON error when the token is missing', async () => {
    const running = await start();
    const answer = await get(running, '/v1/live_calls', null);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toEqual({ success: false, message: expect.any(String) });
  });

  it('answers 403 for a wrong token without echoing it', async () => {
    const running = await start();
    const answer = await get(running, '/v1/billing/payments/online', 'wrong-secret-123');
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ success: false });
    expect(answer.text).not.toContain('wrong-secret-123');
  });

  it('accepts only the new token after setToken', async () => {
    const running = await start();
    running.setToken('rotated');
    expect((await get(running, '/v1/live_calls')).status).toBe(403);
    expect((await get(running, '/v1/live_calls', 'rotated')).status).toBe(200);
  });
});

describe('Routing', () => {
  it('answers 404 with a JSON error for an unknown path', async () => {
    const running = await start();
    const answer = await get(running, '/v1/nothing');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ success: false });
  });

  it('answers 405 for a method other than GET', async () => {
    const running = await start();
    const response = await fetch(`${running.url}/v1/live_calls`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-token' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(await response.json()).toMatchObject({ success: false });
  });

  it('records each request with its query, whether it was authorized and its status', async () => {
    const running = await start();
    await get(running, '/v1/live_calls?did_number=8000000001');
    await get(running, '/v1/live_calls', 'bad');
    expect(running.requests).toEqual([
      {
        method: 'GET',
        path: '/v1/live_calls',
        query: { did_number: '8000000001' },
        authorized: true,
        status: 200,
      },
      { method: 'GET', path: '/v1/live_calls', query: {}, authorized: false, status: 403 },
    ]);
    expect(JSON.stringify(running.requests)).not.toContain('sim-token');
  });
});
