import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoStateStore } from '../../functions/adapters/dynamodb-state';
import { RuntimeConfigError } from '../../functions/adapters/errors';
import { sqsSampleQueue } from '../../functions/adapters/sqs-samples';
import { createPollerHandler } from '../../functions/handler';
import { collectAfterLargeRun, LARGE_RUN_RECORDS } from '../../functions/heap';
import { createNotifierRuntime } from '../../functions/notifier-wiring';
import { createRuntime } from '../../functions/runtime';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import { StateConflictError, StateStoreError } from '../../shared/ports/errors';
import { RecordBatch } from '../../shared/records/batch';
import type { RunSummary } from '../../shared/runner/types';
import { sampleState } from '../ports/fixtures';

const dynamodb = mockClient(DynamoDBClient);
const sns = mockClient(SNSClient);
const ssm = mockClient(SSMClient);
let directory: string;

const RULES = `
api: { baseUrl: "http://127.0.0.1:9", tokenParameter: /unit/api-token }
channels: { oncall: { sms: ["+12025550100"] } }
rules:
  - { name: any-ringing, source: live_calls, where: { state: Ringing }, count: ">= 1", notify: [oncall] }
`;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-handler-'));
  // A validated config, as TELEALERT_CONFIG_FILE names one (in the format synth ships).
  writeEmbeddedConfig(join(directory, 'telealert.json'), parseConfig(RULES, 'telealert.yaml'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));
afterEach(() => {
  dynamodb.reset();
  sns.reset();
  ssm.reset();
  vi.restoreAllMocks();
});

function baseEnv(): NodeJS.ProcessEnv {
  return {
    TELEALERT_CONFIG_FILE: join(directory, 'telealert.json'),
    AWS_REGION: 'us-east-1',
    TELEALERT_TABLE: 'state',
    TELEALERT_TOPICS: JSON.stringify({ oncall: 'arn:aws:sns:us-east-1:1:oncall' }),
  };
}
const context = {
  awsRequestId: 'req-1',
  functionName: 'poller',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

describe('Function: createPollerHandler', () => {
  it('turns an SSM outage into a failed poll, without throwing or logging secrets', async () => {
    ssm.on(GetParameterCommand).rejects(
      Object.assign(new Error('Service Unavailable'), {
        name: 'InternalServerError',
      }),
    );
    dynamodb.on(QueryCommand).resolves({ Items: [] });
    dynamodb.on(UpdateItemCommand).resolves({});
    const lines: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
        lines.push(String(chunk));
        return true;
      });
    }
    const handler = createPollerHandler('live_calls', {
      env: baseEnv(),
      logger: new Logger({ serviceName: 'telealert' }),
    });
    const summary = (await handler({}, context)) as RunSummary;
    expect(summary).toMatchObject({ samples: 1, failures: 1, sent: 0 });
    const logged = lines.join('');
    expect(logged).toContain('poll failed');
    expect(logged).toContain('cannot read the API token from SSM parameter /unit/api-token');
    expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(1);
    expect(sns.calls()).toHaveLength(0);
  });

  it('runs the poller of a source no rule reads without the token or the API, and writes nothing when nothing fires', async () => {
    dynamodb.on(QueryCommand).resolves({ Items: [] });
    dynamodb.on(UpdateItemCommand).resolves({});
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    // RULES has no payments rule.
    const handler = createPollerHandler('payments', {
      env: baseEnv(),
      logger: new Logger({ serviceName: 'telealert' }),
    });
    const summary = (await handler({}, context)) as RunSummary;
    expect(summary).toMatchObject({ samples: 1, failures: 0, records: 0, sent: 0 });
    expect(ssm.calls()).toHaveLength(0);
    expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    const logged = lines.join('');
    expect(logged).not.toContain('poll succeeded');
    expect(logged).not.toContain('PollSucceeded');
  });

  it('collects garbage after a run that read a large answer, and only then', async () => {
    dynamodb.on(QueryCommand).resolves({ Items: [] });
    dynamodb.on(UpdateItemCommand).resolves({});
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'token' } });
    const rows = (count: number) =>
      RecordBatch.of(
        Array.from({ length: count }, (_, i) => ({
          source: 'live_calls' as const,
          key: `c${i}`,
          fields: { call_id: `c${i}`, state: 'Answered' },
        })),
      );
    for (const [count, collections] of [
      [LARGE_RUN_RECORDS, 1],
      [LARGE_RUN_RECORDS - 1, 0],
    ] as const) {
      const collect = vi.fn();
      const handler = createPollerHandler('live_calls', {
        env: baseEnv(),
        logger: new Logger({ serviceName: 'telealert', logLevel: 'SILENT' }),
        collect,
        wire: (wiring) => ({
          ...wiring,
          client: {
            request: async () => ({ records: rows(count), skipped: 0, skipReasons: [] }),
          },
        }),
      });
      const summary = (await handler({}, context)) as RunSummary;
      expect(summary.records).toBe(count);
      expect(collect).toHaveBeenCalledTimes(collections);
    }
  });
});

describe('Function: collectAfterLargeRun', () => {
  it('does nothing where the runtime exposes no collector', () => {
    expect(collectAfterLargeRun(LARGE_RUN_RECORDS * 5, undefined)).toBe(false);
  });
});

describe('Function: createNotifierRuntime', () => {
  it('refuses a rules file channel that has no topic', () => {
    expect(() => createNotifierRuntime({ ...baseEnv(), TELEALERT_TOPICS: '{}' })).toThrow(
      'TELEALERT_TOPICS has no topic for channel(s) oncall: redeploy the stack with this rules file',
    );
  });

  it('refuses a channel named like an object property that has no topic', () => {
    const file = join(directory, 'constructor.json');
    writeEmbeddedConfig(file, parseConfig(RULES.replaceAll('oncall', 'constructor'), 'x.yaml'));
    expect(() =>
      createNotifierRuntime({ ...baseEnv(), TELEALERT_CONFIG_FILE: file, TELEALERT_TOPICS: '{}' }),
    ).toThrow('TELEALERT_TOPICS has no topic for channel(s) constructor');
  });

  it('refuses topics that are not a JSON object of ARNs, saying what is wrong', () => {
    for (const [topics, reason] of [
      ['["x"]', 'it is an array'],
      ['oncall', 'it is not JSON'],
      ['{"":"arn:aws:sns:us-east-1:1:x"}', 'a channel name is empty'],
      ['{"oncall":"x"}', 'oncall: "x" is not an ARN'],
      ['{"oncall":1}', 'oncall: 1 is not an ARN'],
    ]) {
      expect(() => createNotifierRuntime({ ...baseEnv(), TELEALERT_TOPICS: topics })).toThrow(
        new RuntimeConfigError(
          `TELEALERT_TOPICS must be a JSON object of channel name to SNS topic ARN: ${reason}`,
        ),
      );
    }
  });
});

describe('Function: createRuntime', () => {
  it('refuses a missing table name with what to set', () => {
    const { TELEALERT_TABLE: _, ...rest } = baseEnv();
    expect(() => createRuntime(rest)).toThrow(
      new RuntimeConfigError("TELEALERT_TABLE is not set: the state table's name"),
    );
  });

  it('needs no topics: a poller publishes nothing', () => {
    const { TELEALERT_TOPICS: _, ...rest } = baseEnv();
    expect(createRuntime(rest).tableName).toBe('state');
  });
  it('makes the sample queue only where the entry gives a way to, and refuses its URL elsewhere', () => {
    const env = { ...baseEnv(), TELEALERT_SAMPLE_QUEUE_URL: 'https://sqs.example/q' };
    expect(() => createRuntime(env)).toThrow(
      new RuntimeConfigError(
        'TELEALERT_SAMPLE_QUEUE_URL is set, but this function queues no samples (only the live calls poller does): remove it',
      ),
    );
    const runtime = createRuntime(env, sqsSampleQueue);
    expect(runtime.sampleQueue?.url).toBe('https://sqs.example/q');
    expect(createRuntime(baseEnv(), sqsSampleQueue).sampleQueue).toBeUndefined();
  });
});

describe('Class: DynamoStateStore (mocked)', () => {
  const store = () =>
    new DynamoStateStore({ client: new DynamoDBClient({ region: 'us-east-1' }), tableName: 't' });

  it('turns a conditional check failure into a StateConflictError', async () => {
    dynamodb
      .on(UpdateItemCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    await expect(store().commit('live_calls', 3, sampleState(), [])).rejects.toBeInstanceOf(
      StateConflictError,
    );
  });

  it('turns any other write failure into a StateStoreError', async () => {
    dynamodb.on(UpdateItemCommand).rejects(new Error('ProvisionedThroughputExceeded'));
    await expect(store().commit('live_calls', 3, sampleState(), [])).rejects.toBeInstanceOf(
      StateStoreError,
    );
  });
});
