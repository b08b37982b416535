import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sqsSampleQueue } from '../../functions/adapters/sqs-samples';
import { createPollerHandler } from '../../functions/handler';
import type { PollerWiring } from '../../functions/wiring';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { validateConfig } from '../../shared/config/validate';
import type { RunSummary } from '../../shared/runner/types';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const TOKEN = 'sampling-token';
const dynamodb = mockClient(DynamoDBClient);
const ssm = mockClient(SSMClient);
const sqs = mockClient(SQSClient);
let simulator: RunningSimulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0, token: TOKEN, scenario: 'quiet' });
  directory = await mkdtemp(join(tmpdir(), 'telealert-sampling-'));
  const rules = {
    api: { baseUrl: simulator.url, tokenParameter: '/sampling/api-token' },
    sources: { live_calls: { every: '1m', samples: 4 } },
    channels: { oncall: { email: ['oncall@example.com'] } },
    rules: [
      {
        name: 'ringing',
        source: 'live_calls',
        where: { state: 'Ringing' },
        count: '> 50',
        notify: ['oncall'],
      },
    ],
  };
  writeEmbeddedConfig(join(directory, 'telealert.json'), validateConfig(rules, 'telealert.json'));
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: TOKEN } });
  dynamodb.on(QueryCommand).resolves({ Items: [] });
  dynamodb.on(UpdateItemCommand).resolves({});
});
afterAll(async () => {
  await simulator.close();
  await rm(directory, { recursive: true, force: true });
});

describe('Function: createPollerHandler (sampling)', () => {
  it('runs all four samples of a minute inside the 55 s the stack gives the function', async () => {
    // A virtual clock: the handler's sleeps between samples advance it instead of waiting, and
    // every reading moves it 10 ms on, as the work between readings would.
    let clock = Date.now();
    const handler = createPollerHandler('live_calls', {
      env: {
        AWS_REGION: 'us-east-1',
        TELEALERT_CONFIG_FILE: join(directory, 'telealert.json'),
        TELEALERT_TABLE: 'state',
        TELEALERT_TOPICS: JSON.stringify({ oncall: 'arn:aws:sns:us-east-1:1:oncall' }),
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
      logger: new Logger({ logLevel: 'SILENT' }),
      now: () => {
        clock += 10;
        return clock;
      },
      sleep: async (ms) => {
        clock += ms;
      },
    });
    const context = {
      awsRequestId: 'req',
      functionName: 'poller',
      getRemainingTimeInMillis: () => 55_000,
    } as unknown as Context;
    const summary = (await handler({}, context)) as RunSummary;
    expect(summary).toMatchObject({ samples: 4, samplesPlanned: 4, failures: 0 });
  });
});

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/1/samples';
const lambdaContext = {
  awsRequestId: 'req',
  functionName: 'poller',
  getRemainingTimeInMillis: () => 55_000,
} as unknown as Context;

/** A handler with a sample queue, on a virtual clock that only sleeps advance. */
function queuedPoller(
  start: number,
  wire?: (wiring: PollerWiring) => PollerWiring,
  logger: Logger = new Logger({ logLevel: 'SILENT' }),
) {
  const clock = { ms: start };
  const handler = createPollerHandler('live_calls', {
    sampleQueue: sqsSampleQueue,
    ...(wire ? { wire } : {}),
    env: {
      AWS_REGION: 'us-east-1',
      TELEALERT_CONFIG_FILE: join(directory, 'telealert.json'),
      TELEALERT_TABLE: 'state',
      TELEALERT_TOPICS: JSON.stringify({ oncall: 'arn:aws:sns:us-east-1:1:oncall' }),
      TELEALERT_SAMPLE_QUEUE_URL: QUEUE_URL,
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    logger,
    now: () => clock.ms,
    sleep: async (ms) => {
      clock.ms += ms;
    },
  });
  return {
    clock,
    invoke: async (event: unknown) =>
      (await handler(event as SQSEvent, lambdaContext)) as RunSummary,
  };
}

function sampleEvent(...bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m${i}`,
      receiptHandle: 'r',
      body,
      attributes: {} as SQSEvent['Records'][number]['attributes'],
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:1:samples',
      awsRegion: 'us-east-1',
    })),
  };
}

const body = (sample: number, dueAtMs: number) =>
  JSON.stringify({ source: 'live_calls', sample, dueAt: new Date(dueAtMs).toISOString() });

describe('Function: createPollerHandler (sample queue)', () => {
  it('takes the first sample and queues the other three at their slots', async () => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const start = Date.parse('2026-11-22T04:00:00.000Z');
    const { invoke, clock } = queuedPoller(start);
    expect(await invoke({ id: 'scheduled' })).toMatchObject({ samples: 1, samplesPlanned: 1 });
    expect(clock.ms).toBe(start);
    const entries = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.Entries ?? [];
    expect(entries.map((e) => e.DelaySeconds)).toEqual([15, 30, 45]);
  });

  it('takes every sample itself, at its slot, when the queue cannot be reached', async () => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).rejects(new Error('connection refused'));
    const start = Date.parse('2026-11-22T04:00:00.000Z');
    const { invoke, clock } = queuedPoller(start);
    expect(await invoke({ id: 'scheduled' })).toMatchObject({ samples: 4, samplesPlanned: 4 });
    expect(clock.ms).toBe(start + 45_000);
  });

  it('takes a queued sample at once', async () => {
    sqs.reset();
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    const { invoke, clock } = queuedPoller(due + 700);
    expect(await invoke(sampleEvent(body(2, due)))).toMatchObject({ samples: 1, failures: 0 });
    expect(clock.ms).toBe(due + 700);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });

  it('drops a queued sample that arrives when the next one is due, and an unreadable one', async () => {
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    const before = simulator.requests.length;
    const { invoke } = queuedPoller(due + 15_000);
    expect(await invoke(sampleEvent(body(2, due), 'garbage'))).toMatchObject({
      samples: 0,
      sent: 0,
    });
    expect(simulator.requests.length).toBe(before);
  });

  it('takes only the newest of several queued samples delivered together', async () => {
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    const before = simulator.requests.length;
    const { invoke } = queuedPoller(due + 5_000);
    expect(await invoke(sampleEvent(body(1, due - 5_000), body(2, due)))).toMatchObject({
      samples: 1,
    });
    expect(simulator.requests.length - before).toBe(1);
  });

  it('takes the samples SQS refused itself, at their slots', async () => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: 'sample-2', SenderFault: false, Code: 'InternalError' }],
    });
    const start = Date.parse('2026-11-22T04:00:00.000Z');
    const { invoke, clock } = queuedPoller(start);
    expect(await invoke({ id: 'scheduled' })).toMatchObject({ samples: 2, samplesPlanned: 2 });
    expect(clock.ms).toBe(start + 30_000);
  });

  it('keeps the fallback samples to the schedule when the queue fails slowly', async () => {
    sqs.reset();
    const start = Date.parse('2026-11-22T04:00:00.000Z');
    const { invoke, clock } = queuedPoller(start);
    sqs.on(SendMessageBatchCommand).callsFake(async () => {
      clock.ms += 10_000;
      throw new Error('timed out');
    });
    expect(await invoke({ id: 'scheduled' })).toMatchObject({ samples: 4, samplesPlanned: 4 });
    expect(clock.ms).toBe(start + 45_000);
  });

  it('gives a queued sample until the next one is due, not the whole timeout', async () => {
    sqs.reset();
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    const deadlines: number[] = [];
    const { invoke } = queuedPoller(due + 500, (wiring) => ({
      ...wiring,
      client: {
        request: (request, options) => {
          deadlines.push(options.deadlineMs);
          return wiring.client.request(request, options);
        },
      },
    }));
    await invoke(sampleEvent(body(2, due)));
    expect(deadlines).toEqual([due + 500 + 15_000]);
  });

  it('reads nothing from the store for a dropped sample', async () => {
    dynamodb.resetHistory();
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    const { invoke } = queuedPoller(due + 20_000);
    await invoke(sampleEvent(body(2, due)));
    expect(dynamodb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('fails the invocation when a queued sample cannot reach the store, so SQS keeps the message', async () => {
    dynamodb.on(QueryCommand).rejects(new Error('throttled'));
    try {
      const due = Date.parse('2026-11-22T04:00:30.000Z');
      const { invoke } = queuedPoller(due + 500);
      await expect(invoke(sampleEvent(body(2, due)))).rejects.toThrow();
    } finally {
      dynamodb.on(QueryCommand).resolves({ Items: [] });
    }
  });

  it('counts queued, not queued and dropped samples on the log lines the dashboard sums', async () => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: 'sample-3', SenderFault: false, Code: 'InternalError' }],
    });
    const logger = new Logger({ logLevel: 'SILENT' });
    const lines = [vi.spyOn(logger, 'info'), vi.spyOn(logger, 'warn')];
    const start = Date.parse('2026-11-22T04:00:00.000Z');
    await queuedPoller(start, undefined, logger).invoke({ id: 'scheduled' });
    const due = Date.parse('2026-11-22T04:00:30.000Z');
    await queuedPoller(due + 20_000, undefined, logger).invoke(sampleEvent(body(2, due), '{}'));
    const counted = (field: string) =>
      lines
        .flatMap((spy) => spy.mock.calls)
        .map(([, fields]) => (fields as Record<string, unknown> | undefined)?.[field])
        .reduce((sum: number, n) => sum + (typeof n === 'number' ? n : 0), 0);
    expect(counted('queued')).toBe(2);
    expect(counted('notQueued')).toBe(1);
    expect(counted('dropped')).toBe(2);
  });
});
