import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { ManualClock } from '../../simulator/clock';
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from './fault-proxy';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { DID_A, e2eScenario, MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let liveCalls: ReturnType<typeof createPollerHandler>;
/** Answers of state updates still to lose (applied by moto, then the connection reset). */
let stateAnswersToLose = 0;

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

const isStateUpdate = (request: ProxiedRequest) =>
  request.operation === 'UpdateItem' &&
  (JSON.parse(request.body) as { Key?: { sk?: { S?: string } } }).Key?.sk?.S === 'state';

const stateUpdates = () =>
  proxy.seen.filter(({ request }) => request.service === 'dynamodb' && isStateUpdate(request));

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
  harness = await startRuntimeHarness({ prefix: 'lost', scenario: e2eScenario, clock });
  proxy = await startFaultProxy(process.env.AWS_ENDPOINT_URL ?? '', (request) => {
    if (stateAnswersToLose === 0 || !isStateUpdate(request)) return undefined;
    stateAnswersToLose -= 1;
    return { kind: 'lost', answer: 'reset' };
  });
  // The handlers' clients go through the proxy; the harness's own (drain, table reads) do not.
  process.env.AWS_ENDPOINT_URL = proxy.endpoint;
  // Made once the environment is set: Powertools reads it (metrics off) at construction.
  liveCalls = createPollerHandler('live_calls', { logger: silentLogger() });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await proxy?.stop();
  await harness?.close();
});

// One timeline: burst A rings from 0 to 3 min on live calls; the rules page after 2 failed polls.
describe('Deployed runtime on moto: the answer to a state write is lost after it was applied', () => {
  it('takes the applied commit as its own and sends its notifications at once, not after the grace', async () => {
    at(30_000);
    stateAnswersToLose = 1;
    expect(await invoke(liveCalls)).toMatchObject({ sent: 2, owedLeft: 0, conflicts: 0 });
    // The first update was applied and its answer lost; the SDK's retry found the revision moved.
    // (On a loaded machine an attempt may also outlast the request timeout and be retried once
    // more: still answered, still the commit's own write.)
    const [first, ...retries] = stateUpdates().map(({ fault }) => fault?.kind);
    expect(first).toBe('lost');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.every((fault) => fault === undefined)).toBe(true);
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
  });

  it('counts a failed poll whose state write answer was lost once towards health.after', async () => {
    harness.simulator.setFault('live_calls', { kind: 'malformed-json' });
    at(MINUTE);
    stateAnswersToLose = 1;
    expect(await invoke(liveCalls)).toMatchObject({ failures: 1, conflicts: 0, sent: 0 });
    expect(await harness.stack.drain('oncall')).toEqual([]);

    // The second failed poll in a row is the one `health.after: 2` pages for.
    at(MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ failures: 1, sent: 1 });
    expect(brief(await harness.stack.drain('oncall'))).toEqual([
      'source_unavailable:firing:live_calls',
    ]);
    harness.simulator.setFault('live_calls', undefined);
  });
});
