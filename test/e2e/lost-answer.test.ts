import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from './fault-proxy';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { DID_A, e2eScenario, MINUTE, rulesToldAtOnce } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let liveCalls: ReturnType<typeof createPollerHandler>;
let notifier: ReturnType<typeof createNotifierHandler>;
/** Answers of state updates still to lose (applied by moto, then the connection reset). */
let stateAnswersToLose = 0;

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

/** The update of a source's state item: the commit point of a poller's run. */
const isStateUpdate = (request: ProxiedRequest) => {
  if (request.operation !== 'UpdateItem') return false;
  const { Key } = JSON.parse(request.body) as {
    Key?: { pk?: { S?: string }; sk?: { S?: string } };
  };
  return Key?.sk?.S === 'state' && Key.pk?.S === 'live_calls';
};

const stateUpdates = () =>
  proxy.seen.filter(({ request }) => request.service === 'dynamodb' && isStateUpdate(request));

/** Each alert line a channel was told, as `rule:status:labels`, sorted. */
async function told(channel: string): Promise<string[]> {
  const messages = (await harness.stack.drain(channel)) as unknown as Message[];
  return messages
    .flatMap((message) => message.alerts)
    .map((alert) => `${alert.rule}:${alert.status}:${Object.values(alert.labels).join(',')}`)
    .sort();
}

/** What the stack does after a poller's commit: the table's stream invokes the notifier. */
const onStream = () => harness.streamToNotifier(notifier);

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'lost',
    scenario: e2eScenario,
    clock,
    rules: (baseUrl, tokenParameter) => rulesToldAtOnce(baseUrl, tokenParameter),
  });
  proxy = await startFaultProxy(process.env.AWS_ENDPOINT_URL ?? '', (request) => {
    if (stateAnswersToLose === 0 || !isStateUpdate(request)) return undefined;
    stateAnswersToLose -= 1;
    return { kind: 'lost', answer: 'reset' };
  });
  // The handlers' clients go through the proxy; the harness's own (drain, table reads) do not.
  process.env.AWS_ENDPOINT_URL = proxy.endpoint;
  // Made once the environment is set: Powertools reads it (metrics off) at construction.
  liveCalls = createPollerHandler('live_calls', { logger: silentLogger() });
  notifier = createNotifierHandler({ logger: silentLogger() });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await proxy?.stop();
  await harness?.close();
});

// One timeline: burst A rings from 0 to 3 min on live calls; the rules page after 2 failed polls.
describe('Deployed runtime on moto: the answer to a state write is lost after it was applied', () => {
  it('takes the applied commit as its own, and its events are owed to the notifier at once, told once', async () => {
    at(30_000);
    stateAnswersToLose = 1;
    expect(await invoke(liveCalls)).toMatchObject({ owedLeft: 2, conflicts: 0 });
    // The first update was applied and its answer lost; the SDK's retry found the revision moved.
    // (On a loaded machine an attempt may also outlast the request timeout and be retried once
    // more: still answered, still the commit's own write.)
    const [first, ...retries] = stateUpdates().map(({ fault }) => fault?.kind);
    expect(first).toBe('lost');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.every((fault) => fault === undefined)).toBe(true);
    // The commit is on the stream: the notifier takes its events now, not after a grace.
    expect(await onStream()).toEqual([expect.objectContaining({ taken: 2 })]);
    expect(await told('oncall')).toEqual([
      'any-ringing:firing:',
      `too-many-ringing:firing:${DID_A}`,
    ]);
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
  });

  it('counts a failed poll whose state write answer was lost once towards health.after', async () => {
    harness.simulator.setFault('live_calls', { kind: 'malformed-json' });
    at(MINUTE);
    stateAnswersToLose = 1;
    expect(await invoke(liveCalls)).toMatchObject({ failures: 1, conflicts: 0, owedLeft: 0 });
    await onStream();
    expect(await told('oncall')).toEqual([]);

    // The second failed poll in a row is the one `health.after: 2` pages for.
    at(MINUTE + 30_000);
    expect(await invoke(liveCalls)).toMatchObject({ failures: 1, owedLeft: 1 });
    await onStream();
    expect(await told('oncall')).toEqual(['source_unavailable:firing:live_calls']);
    harness.simulator.setFault('live_calls', undefined);
  });
});
