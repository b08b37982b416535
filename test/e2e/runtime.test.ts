import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { handler as liveCalls } from '../../functions/live-calls';
import { handler as payments } from '../../functions/payments';
import type { RunSummary } from '../../shared/runner/types';
import { ManualClock } from '../../simulator/clock';
import { lambdaContext, type RuntimeHarness, startRuntimeHarness } from './lambda';
import { DID_A, DID_B, DID_C, e2eScenario, MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let invocations = 0;

/** Moves the simulator's clock and the handlers' `Date` together. */
function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

type Handler = (event: { id: string }, context: Context) => Promise<RunSummary>;
const invoke = (handler: unknown) => {
  invocations += 1;
  return (handler as Handler)({ id: `event-${invocations}` }, lambdaContext());
};

interface Body {
  rule: string;
  status: string;
  labels: Record<string, string>;
}
const brief = (bodies: Record<string, unknown>[]) =>
  (bodies as unknown as Body[])
    .map((b) => `${b.rule}:${b.status}:${Object.values(b.labels).join(',')}`)
    .sort();

beforeAll(async () => {
  harness = await startRuntimeHarness({ prefix: 'e2e', scenario: e2eScenario, clock });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('Deployed runtime on moto: the poller handlers', () => {
  it('delivers each firing alert once, to its channels, honouring severity filter policies', async () => {
    at(30_000);
    const summary = await invoke(liveCalls);
    expect(summary).toMatchObject({ samples: 1, sent: 2, failures: 0, owedLeft: 0 });
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(brief(await harness.stack.drain('managers'))).toEqual([
      `too-many-ringing:firing:${DID_A}`,
    ]);

    await invoke(payments);
    const finance = await harness.stack.drain('finance');
    expect(finance).toHaveLength(1);
    expect(finance[0]).toMatchObject({
      rule: 'big-payment',
      status: 'firing',
      severity: 'warning',
      source: 'payments',
    });

    at(90_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0 });
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });

  it('sends resolved messages once the calls are gone', async () => {
    at(4 * MINUTE);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2 });
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'any-ringing:resolved:',
      `too-many-ringing:resolved:${DID_A}`,
    ]);
    expect(brief(await harness.stack.drain('managers'))).toEqual([
      `too-many-ringing:resolved:${DID_A}`,
    ]);
  });

  it('picks up a token rotated in SSM after one rejected request, and never logs it', async () => {
    await harness.stack.putToken('token-2');
    harness.simulator.setToken('token-2');
    const before = harness.simulator.requests.length;
    const output: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
        output.push(String(chunk));
        return true;
      }),
    );
    try {
      at(4 * MINUTE + 30_000);
      expect(await invoke(liveCalls)).toMatchObject({ samples: 1, failures: 0 });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const seen = harness.simulator.requests.slice(before);
    expect(seen.map((r) => r.authorized)).toEqual([false, true]);
    const logged = output.join('');
    expect(logged).toContain('run finished');
    expect(logged).not.toContain('token-1');
    expect(logged).not.toContain('token-2');
  });

  it('raises one source_unavailable during an API outage and resolves it after', async () => {
    harness.simulator.setFault('live_calls', { kind: 'status', status: 500 });
    for (const offset of [5 * MINUTE - 20_000, 5 * MINUTE - 10_000, 5 * MINUTE - 5_000]) {
      at(offset);
      expect(await invoke(liveCalls)).toMatchObject({ failures: 1 });
    }
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'source_unavailable:firing:live_calls',
    ]);
    harness.simulator.setFault('live_calls', undefined);
    at(5 * MINUTE - 1_000);
    await invoke(liveCalls);
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'source_unavailable:resolved:live_calls',
    ]);
  });

  it('delivers on a later run what a run killed after its commit still owed', async () => {
    const killed = createPollerHandler('live_calls', {
      wire: (wiring) => ({
        ...wiring,
        publisher: { publish: () => Promise.reject(new Error('killed before publishing')) },
      }),
    });
    at(5 * MINUTE + 30_000);
    expect(await invoke(killed)).toMatchObject({ sent: 0, owedLeft: 2 });
    expect(await harness.stack.drain('oncall')).toEqual([]);

    // Within the grace period the owed entries may still be another run's: left alone.
    at(6 * MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0 });

    at(7 * MINUTE + 40_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2, owedLeft: 0 });
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_B}`,
    ]);
    expect(brief(await harness.stack.drain('managers'))).toEqual([
      `too-many-ringing:firing:${DID_B}`,
    ]);
  });

  it('delivers each alert once when two runs of one source overlap', async () => {
    at(9 * MINUTE);
    await invoke(liveCalls);
    await harness.stack.drain('oncall');
    await harness.stack.drain('managers');

    const other = createPollerHandler('live_calls');
    at(10 * MINUTE + 30_000);
    const summaries = await Promise.all([invoke(liveCalls), invoke(other)]);
    expect(summaries.reduce((sum, s) => sum + s.sent, 0)).toBe(2);
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_C}`,
    ]);
    expect(brief(await harness.stack.drain('managers'))).toEqual([
      `too-many-ringing:firing:${DID_C}`,
    ]);
  });
});
