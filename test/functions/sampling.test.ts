import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import type { RunSummary } from '../../shared/runner/types';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const TOKEN = 'sampling-token';
const dynamodb = mockClient(DynamoDBClient);
const ssm = mockClient(SSMClient);
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
  await writeFile(join(directory, 'telealert.json'), JSON.stringify(rules));
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
