import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { handler as liveCalls } from '../../functions/live-calls';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import { handler as payments } from '../../functions/payments';
import type { Message } from '../../shared/notifier/types';
import type { RunSummary } from '../../shared/runner/types';
import { ManualClock } from '../../simulator/clock';
import { lambdaContext, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { DID_A, DID_B, DID_C, e2eScenario, MINUTE, rulesToldAtOnce } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let invocations = 0;

/** Moves the simulator's clock and the handlers' `Date` together. */
function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

type Handler = (event: { id: string }, context: Context) => Promise<unknown>;
const invoke = <T = RunSummary>(handler: unknown) => {
  invocations += 1;
  return (handler as Handler)({ id: `event-${invocations}` }, lambdaContext()) as Promise<T>;
};

/** Each alert line a channel was told, as `rule:status:labels`, sorted. */
async function told(channel: string): Promise<string[]> {
  const messages = (await harness.stack.drain(channel)) as unknown as Message[];
  return messages
    .flatMap((message) => message.alerts)
    .map((alert) => `${alert.rule}:${alert.status}:${Object.values(alert.labels).join(',')}`)
    .sort();
}

let notifier: ReturnType<typeof createNotifierHandler>;
/** What the stack does after a poller's commit: the table's stream invokes the notifier. */
const onStream = () => harness.streamToNotifier(notifier);

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2e',
    scenario: e2eScenario,
    clock,
    // Each round tells at once what the pollers committed since the last one.
    rules: (baseUrl, tokenParameter) => rulesToldAtOnce(baseUrl, tokenParameter),
  });
  // Made once the environment is set: Powertools reads it (metrics off) at construction.
  notifier = createNotifierHandler({ logger: silentLogger() });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('Deployed runtime on moto: the poller handlers commit, the notifier tells', () => {
  it('tells each firing alert once, to its channels, honouring severity filter policies', async () => {
    at(30_000);
    const summary = await invoke(liveCalls);
    // The poller only commits: its events are owed to the notifier, and nothing is sent yet.
    expect(summary).toMatchObject({ samples: 1, sent: 0, failures: 0, owedLeft: 2 });
    expect(await told('oncall')).toEqual([]);
    expect(await onStream()).toEqual([expect.objectContaining({ taken: 2 })]);
    expect(await told('oncall')).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(await told('managers')).toEqual([`too-many-ringing:firing:${DID_A}`]);

    await invoke(payments);
    await onStream();
    const finance = (await harness.stack.drain('finance')) as unknown as Message[];
    expect(finance).toHaveLength(1);
    expect(finance[0]).toMatchObject({ channel: 'finance', kind: 'alerts' });
    expect(finance[0]?.alerts).toEqual([
      expect.objectContaining({ rule: 'big-payment', status: 'firing', severity: 'warning' }),
    ]);

    // Nothing new: the run owes nothing, and a notifier its state write wakes tells nothing.
    at(90_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0, owedLeft: 0 });
    for (const round of await onStream()) expect(round).toMatchObject({ taken: 0, decided: [] });
    expect(await told('oncall')).toEqual([]);
  });

  it('tells the resolutions once the calls are gone', async () => {
    at(4 * MINUTE);
    await invoke(liveCalls);
    await onStream();
    expect(await told('oncall')).toEqual([
      'any-ringing:resolved:',
      `too-many-ringing:resolved:${DID_A}`,
    ]);
    expect(await told('managers')).toEqual([`too-many-ringing:resolved:${DID_A}`]);
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
      await onStream();
    }
    expect(await told('oncall')).toEqual(['source_unavailable:firing:live_calls']);
    harness.simulator.setFault('live_calls', undefined);
    at(5 * MINUTE - 1_000);
    await invoke(liveCalls);
    await onStream();
    expect(await told('oncall')).toEqual(['source_unavailable:resolved:live_calls']);
  });

  it("tells on the notifier's next minute what a commit whose stream invocation failed still owes", async () => {
    const failing = createNotifierHandler({
      logger: silentLogger(),
      wire: (wiring) => ({
        ...wiring,
        events: {
          loadOwed: () => Promise.reject(new Error('the invocation was killed')),
          markSent: (source, ids) => wiring.events.markSent(source, ids),
        },
      }),
    });
    at(5 * MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ sent: 0, owedLeft: 2 });
    // The stream's invocation fails and its record is dropped: nothing is sent.
    await expect(harness.streamToNotifier(failing)).rejects.toThrow('the invocation was killed');
    expect(await told('oncall')).toEqual([]);

    at(6 * MINUTE);
    expect(await invoke<NotifierSummary>(notifier)).toMatchObject({ taken: 2 });
    expect(await told('oncall')).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_B}`,
    ]);
    expect(await told('managers')).toEqual([`too-many-ringing:firing:${DID_B}`]);
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
  });

  it('tells each alert once when two runs of one source overlap', async () => {
    at(9 * MINUTE);
    await invoke(liveCalls);
    await onStream();
    await told('oncall');
    await told('managers');

    const other = createPollerHandler('live_calls', { logger: silentLogger() });
    at(10 * MINUTE + 30_000);
    await Promise.all([invoke(liveCalls), invoke(other)]);
    await onStream();
    expect(await told('oncall')).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_C}`,
    ]);
    expect(await told('managers')).toEqual([`too-many-ringing:firing:${DID_C}`]);
  });
});
