import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { PollerWiring } from '../../functions/wiring';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { validateConfig } from '../../shared/config/validate';
import { emptyState } from '../../shared/engine/state';
import type { Notification } from '../../shared/engine/types';
import { MemoryNotifierStore, MemoryStateStore } from '../../shared/ports/memory';
import type { RunSummary } from '../../shared/runner/types';
import type { SourceName } from '../../shared/types/config';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

/*
 * The call counts issue 6 budgets (the bench prints them; these pin them): per run, one API
 * request per source per sample (payments: one per distinct pushed-down amount comparison), no
 * SSM call once the token is cached; no SNS call in a poller, and one Publish per message the
 * notifier sends (messages group events: fewer than the events).
 */

const TOKEN = 'counts-token';
const dynamodb = mockClient(DynamoDBClient);
const sns = mockClient(SNSClient);
const ssm = mockClient(SSMClient);
let simulator: RunningSimulator;
let directory: string;

function rules(baseUrl: string) {
  return {
    api: { baseUrl, tokenParameter: '/counts/api-token' },
    sources: { live_calls: { every: '1m', samples: 2 } },
    channels: { oncall: { sms: ['+12025550100'] }, finance: { email: ['f@example.com'] } },
    rules: [
      // Every live call is its own alert: a crowd of notifications on the first run.
      {
        name: 'any-call',
        source: 'live_calls',
        where: { direction: ['inbound', 'outbound'] },
        notify: ['oncall', 'finance'],
      },
      { name: 'big', source: 'payments', where: { amount_paid: '> 15000' }, notify: ['finance'] },
      {
        name: 'bigger',
        source: 'payments',
        where: { amount_paid: '>= 19000' },
        notify: ['finance'],
      },
      {
        name: 'big-again',
        source: 'payments',
        where: { amount_paid: '> 15000.00', status: 'pending' },
        notify: ['oncall'],
      },
    ],
  };
}

const context = {
  awsRequestId: 'req',
  functionName: 'poller',
  getRemainingTimeInMillis: () => 55_000,
} as unknown as Context;

/** The environment of the stack's functions, the table mocked. */
const environment = () => ({
  AWS_REGION: 'us-east-1',
  TELEALERT_CONFIG_FILE: join(directory, 'telealert.json'),
  TELEALERT_TABLE: 'state',
  TELEALERT_TOPICS: JSON.stringify({
    oncall: 'arn:aws:sns:us-east-1:1:oncall',
    finance: 'arn:aws:sns:us-east-1:1:finance',
  }),
  POWERTOOLS_METRICS_DISABLED: 'true',
});

function poller(source: SourceName, wire?: (wiring: PollerWiring) => PollerWiring) {
  const { TELEALERT_TOPICS: _topics, ...pollerEnvironment } = environment();
  const handler = createPollerHandler(source, {
    ...(wire ? { wire } : {}),
    env: pollerEnvironment,
    logger: new Logger({ logLevel: 'SILENT' }),
    sleep: async () => {},
  });
  return async () => (await handler({}, context)) as RunSummary;
}

const requestsTo = (path: string) => simulator.requests.filter((r) => r.path === path).length;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0, token: TOKEN, scenario: 'quiet' });
  directory = await mkdtemp(join(tmpdir(), 'telealert-counts-'));
  writeEmbeddedConfig(
    join(directory, 'telealert.json'),
    validateConfig(rules(simulator.url), 'telealert.json'),
  );
});
afterAll(async () => {
  await simulator.close();
  await rm(directory, { recursive: true, force: true });
});
beforeEach(() => {
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: TOKEN } });
  // An empty table, whichever reads and writes the state store uses.
  dynamodb.on(GetItemCommand).resolves({});
  dynamodb.on(QueryCommand).resolves({ Items: [] });
  dynamodb.on(UpdateItemCommand).resolves({});
  dynamodb.on(DeleteItemCommand).resolves({});
  dynamodb.on(BatchWriteItemCommand).resolves({});
  sns.on(PublishCommand).resolves({});
});
afterEach(() => {
  dynamodb.reset();
  sns.reset();
  ssm.reset();
});

describe('Function: createPollerHandler (request counts)', () => {
  it('makes one live calls request per sample and no SSM call once warm', async () => {
    const run = poller('live_calls');
    const before = requestsTo('/v1/live_calls');
    expect(await run()).toMatchObject({ samples: 2 });
    expect(requestsTo('/v1/live_calls') - before).toBe(2);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);

    ssm.resetHistory();
    expect(await run()).toMatchObject({ samples: 2 });
    expect(requestsTo('/v1/live_calls') - before).toBe(4);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(0);
  });

  it('makes one payments request per distinct pushed-down amount comparison', async () => {
    const run = poller('payments');
    const before = simulator.requests.length;
    await run();
    const made = simulator.requests.slice(before).filter((r) => r.path.includes('payments'));
    // `> 15000` and `> 15000.00` are one comparison; `>= 19000` is another.
    expect(made.map((r) => `${r.query.operator} ${r.query.amount}`).sort()).toEqual([
      '> 15000',
      '>= 19000',
    ]);
  });

  it('makes no SNS call in a poller, and the notifier one publish per message, not per event', async () => {
    simulator.setFault('live_calls', { kind: 'large', count: 23 });
    const committed: Notification[] = [];
    try {
      await poller('live_calls', (wiring) => ({
        ...wiring,
        store: {
          load: (source) => wiring.store.load(source),
          markSent: (source, ids) => wiring.store.markSent(source, ids),
          narrowOwed: (source, id, channels) => wiring.store.narrowOwed(source, id, channels),
          commit: async (source, revision, next, owed) => {
            committed.push(...owed);
            return wiring.store.commit(source, revision, next, owed);
          },
        },
      }))();
    } finally {
      simulator.setFault('live_calls', undefined);
    }
    expect(committed.length).toBeGreaterThan(20);
    expect(sns.calls()).toHaveLength(0);

    // The notifier takes what the poller committed (here from memory, the table being mocked).
    const events = new MemoryStateStore();
    await events.commit('live_calls', 0, emptyState('live_calls'), committed);
    const notifier = createNotifierHandler({
      wire: (wiring) => ({ ...wiring, events, store: new MemoryNotifierStore() }),
      env: { ...environment(), POWERTOOLS_METRICS_DISABLED: 'true' },
      logger: new Logger({ logLevel: 'SILENT' }),
    });
    const summary = (await notifier({ id: 'schedule' }, context)) as NotifierSummary;
    expect(summary.taken).toBe(committed.length);
    // Grouped: a message per channel and group, each one Publish to its channel's topic.
    expect(summary.published.length).toBeGreaterThan(0);
    expect(summary.published.length).toBeLessThan(committed.length);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(summary.published.length);
    expect(sns.calls()).toHaveLength(summary.published.length);
  });
});
