import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NotifierEvent } from '../../functions/events';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { CallEvent, Scenario } from '../../simulator/scenarios/types';
import { committedItems, type RunOutcome, Sandbox } from './fault-injection';
import { type FaultProxy, startFaultProxy } from './fault-proxy';
import {
  invoke,
  lambdaContext,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
} from './lambda';
import { MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const HOUR = 60 * MINUTE;
const CALLS = 100;
/** The notifier function's timeout in the stack (`infra/notifier.ts`). */
const NOTIFIER_TIMEOUT_MS = 50_000;
/** The outage: SNS refuses every publish for this long after the calls ring. */
const OUTAGE_MS = 3 * HOUR;
/** How often the test invokes the notifier during the outage (the stack: every minute). */
const ROUND_EVERY_MS = 20 * MINUTE;

/** A hundred calls ringing together: each its own alert, each alert its own message. */
const hundredCalls: Scenario = {
  name: 'hundred-calls',
  description: 'a hundred calls ringing at once for a minute',
  windowMs: 60 * MINUTE,
  maxCallMs: 2 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    const calls: CallEvent[] = Array.from({ length: CALLS }, (_, i) => ({
      serial: i + 1,
      startMs: 0,
      ringMs: MINUTE,
      direction: 1,
      did: DIDS[i % DIDS.length] ?? '',
      caller: `+91900000${String(i + 1).padStart(4, '0')}`,
      agents: AGENTS.slice(i % AGENTS.length, (i % AGENTS.length) + 1),
    }));
    return { calls, payments: [] };
  },
};

function rules(baseUrl: string, tokenParameter: string): string {
  return `
timezone: Asia/Kolkata
api:
  baseUrl: ${baseUrl}
  tokenParameter: ${tokenParameter}
sources:
  live_calls: { every: 1m }
channels:
  oncall:
    email: [oncall@example.com]
    group: { by: [call_id] }
rules:
  - name: call-ringing
    source: live_calls
    where: { state: Ringing }
    resolved: false
    notify: [oncall]
`;
}

const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let direct: DynamoDBClient;
let snsDown = false;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'outage',
    scenario: hundredCalls,
    clock,
    channels: { oncall: {} },
    rules,
  });
  const motoEndpoint = process.env.AWS_ENDPOINT_URL ?? '';
  direct = new DynamoDBClient({ endpoint: motoEndpoint, region: 'us-east-1' });
  proxy = await startFaultProxy(motoEndpoint, (request) =>
    snsDown && request.service === 'sns' ? { kind: 'error', status: 503 } : undefined,
  );
  // The handlers' clients go through the proxy; the harness's own and `direct` do not.
  process.env.AWS_ENDPOINT_URL = proxy.endpoint;
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  direct?.destroy();
  await proxy?.stop();
  await harness?.close();
});

type NotifierInvocation = (event: NotifierEvent, context: Context) => Promise<NotifierSummary>;

/**
 * The notifier function in a Lambda sandbox on the test's clock (a refused publish's retry
 * waits on it), which the Lambda service kills at its timeout: a call the invocation makes past
 * its deadline never returns.
 */
function notifierContainer() {
  let deadlineMs = Number.POSITIVE_INFINITY;
  const sandbox = new Sandbox(() => (clock.now() >= deadlineMs ? { applied: false } : undefined));
  const handler = createNotifierHandler({
    logger: silentLogger(),
    now: () => clock.now(),
    sleep: async (ms) => at(clock.now() + ms),
    wire: (built) => {
      sandbox.arm([built.runtime.dynamodb, built.runtime.sns]);
      return built;
    },
  }) as unknown as NotifierInvocation;
  return {
    sandbox,
    async run(): Promise<{ outcome: RunOutcome; summary?: NotifierSummary }> {
      deadlineMs = clock.now() + NOTIFIER_TIMEOUT_MS;
      let summary: NotifierSummary | undefined;
      const outcome = await sandbox.run(async () => {
        summary = await handler(
          { id: `schedule-${clock.now()}` },
          lambdaContext(NOTIFIER_TIMEOUT_MS),
        );
      });
      return summary === undefined ? { outcome } : { outcome, summary };
    },
  };
}

describe('Deployed notifier on moto: SNS refuses every publish for hours', () => {
  it('tells each of 100 owed messages once, under the id it was first decided with, once SNS is back', async () => {
    at(T0 + 30_000);
    await invoke(createPollerHandler('live_calls', { logger: silentLogger() }));

    snsDown = true;
    let container = notifierContainer();
    const decided = new Set<string>();
    const rounds: string[] = [];
    const round = async () => {
      const { outcome, summary } = await container.run();
      for (const item of summary?.decided ?? []) decided.add(item.id);
      rounds.push(
        `${new Date(clock.now()).toISOString()} ${outcome} published ${summary?.published.length ?? '?'} unpublished ${summary?.unpublished.length ?? '?'}`,
      );
      if (outcome === 'killed') container = notifierContainer();
      return outcome;
    };

    const outcomes: RunOutcome[] = [];
    for (let offset = MINUTE; offset < OUTAGE_MS; offset += ROUND_EVERY_MS) {
      at(T0 + offset);
      outcomes.push(await round());
    }
    const context = rounds.join('\n');
    // Each round stopped publishing in time: none was killed at the function's timeout.
    expect(
      outcomes.every((outcome) => outcome === 'done'),
      context,
    ).toBe(true);
    expect(decided.size, context).toBe(CALLS);
    // The events are the notifier's since its first round: none is owed by the poller.
    expect(await committedItems(direct, harness.stack.tableName, 'live_calls'), context).toEqual(
      [],
    );

    snsDown = false;
    at(T0 + OUTAGE_MS);
    expect(await round(), context).toBe('done');
    at(T0 + OUTAGE_MS + MINUTE);
    expect(await round(), context).toBe('done');

    const told = (await harness.stack.drain('oncall')) as unknown as Message[];
    const keys = told.flatMap((message) => message.alerts.map((alert) => alert.key));
    expect(told, rounds.join('\n')).toHaveLength(CALLS);
    expect(new Set(keys).size).toBe(CALLS);
    expect(new Set(told.map((message) => message.id)).size).toBe(CALLS);
    // Under the ids first decided: no event was decided again under another message.
    expect(told.every((message) => decided.has(message.id))).toBe(true);
    expect(decided.size).toBe(CALLS);
    expect(await committedItems(direct, harness.stack.tableName, 'notifier')).toEqual([]);
  }, 600_000);
});
