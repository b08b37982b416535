import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { committedItems } from './fault-injection';
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from './fault-proxy';
import {
  invoke,
  lambdaContext,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
} from './lambda';
import { e2eScenario, MINUTE } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let direct: DynamoDBClient;

/** Set while the next owed message write is to be held back and land late. */
let holdNextMessageWrite = false;
let release: () => void = () => {};
const released = new Promise<void>((resolve) => {
  release = resolve;
});
let landed: (status: number) => void = () => {};
const lateWriteLanded = new Promise<number>((resolve) => {
  landed = resolve;
});

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

const isMessageWrite = (request: ProxiedRequest) =>
  request.operation === 'UpdateItem' &&
  ((JSON.parse(request.body) as { Key?: { sk?: { S?: string } } }).Key?.sk?.S ?? '').startsWith(
    'message#',
  );

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'late',
    scenario: e2eScenario,
    clock,
  });
  const motoEndpoint = process.env.AWS_ENDPOINT_URL ?? '';
  direct = new DynamoDBClient({ endpoint: motoEndpoint, region: 'us-east-1' });
  proxy = await startFaultProxy(motoEndpoint, (request) => {
    if (!holdNextMessageWrite || !isMessageWrite(request)) return undefined;
    holdNextMessageWrite = false;
    return { kind: 'late', until: released, landed };
  });
  // The handlers' clients go through the proxy; the harness's own and `direct` do not.
  process.env.AWS_ENDPOINT_URL = proxy.endpoint;
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  release();
  direct?.destroy();
  await proxy?.stop();
  await harness?.close();
});

describe('Deployed notifier on moto: a first attempt of an owed message write that lands late', () => {
  it('does not make a message it published and marked sent owed again', async () => {
    const logger = silentLogger();
    const liveCalls = createPollerHandler('live_calls', { logger });
    const notifier = createNotifierHandler({ logger });
    const round = (handler: unknown) =>
      (handler as (event: { id: string }, context: unknown) => Promise<NotifierSummary>)(
        { id: `schedule-${Date.now()}` },
        lambdaContext(),
      );

    at(30_000);
    await invoke(liveCalls);
    // The round's first owed message write is reset before it reaches DynamoDB: the SDK's retry
    // writes it, the round commits, publishes and marks the messages sent.
    holdNextMessageWrite = true;
    const first = await round(notifier);
    expect(first.decided.length).toBeGreaterThan(0);
    expect(first.unpublished).toEqual([]);
    expect(holdNextMessageWrite).toBe(false);
    const told = (await harness.stack.drain('oncall')) as unknown as Message[];
    expect(told.length).toBeGreaterThan(0);

    // Only now does the first attempt reach DynamoDB.
    release();
    await lateWriteLanded;

    // Past the grace period for owed messages, rounds find nothing to publish again.
    for (const offset of [3 * MINUTE, 4 * MINUTE]) {
      at(offset);
      expect((await round(notifier)).published).toEqual([]);
    }
    expect(await harness.stack.drain('oncall')).toEqual([]);
    expect(await committedItems(direct, harness.stack.tableName, 'notifier')).toEqual([]);
  });
});
