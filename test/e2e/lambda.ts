import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { StreamMapping } from '../../cli/deploy-local/stream';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import { NOTIFIER_STREAM_FILTER } from '../../infra/notifier';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import type { RunSummary } from '../../shared/runner/types';
import type { SourceName } from '../../shared/types/config';
import type { ManualClock } from '../../simulator/clock';
import type { Scenario } from '../../simulator/scenarios/types';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { createFakeStack, type FakeStack } from '../support/aws';
import { type Moto, startMoto } from './moto';
import { rulesFile } from './scenario';

/** The SSM parameter the harness puts the API token in. */
export const TOKEN_PARAMETER = '/e2e/api-token';
const TOKEN = 'token-1';

/** Everything a poller handler needs around it, on loopback: moto, the stack's resources, the API. */
export interface RuntimeHarness {
  readonly stack: FakeStack;
  readonly simulator: RunningSimulator;
  /** A scratch directory of the test's own (the rules as written live there), removed by `close`. */
  readonly directory: string;
  /** The `sk` of every item of a partition of the state table (a source's, the notifier's), read consistently. */
  tableKeys(partition: SourceName | 'notifier'): Promise<string[]>;
  /**
   * What the stack's event source mapping does with the table's stream, which moto cannot:
   * invokes `notifier` with the records written since the last call that the stack's filter
   * keeps (a poller's commit). Resolves with each invocation's summary: none when no poller
   * committed since.
   */
  streamToNotifier(notifier: unknown): Promise<NotifierSummary[]>;
  close(): Promise<void>;
}

export interface RuntimeHarnessOptions {
  /** Resource name prefix (one moto per test file, but names stay apart in logs). */
  readonly prefix: string;
  readonly scenario: Scenario;
  /** The simulator's clock; its scenario starts at the clock's time. */
  readonly clock: ManualClock;
  /** `sources.live_calls.samples` of the rules. @default 1 */
  readonly samples?: number;
  /** The stack's channels. @default oncall, managers (critical only), finance */
  readonly channels?: Parameters<typeof createFakeStack>[0]['channels'];
  /** The rules file's text for the simulator's URL. @default the e2e rules (`scenario.ts`) */
  readonly rules?: (baseUrl: string, tokenParameter: string) => string;
}

/**
 * Starts moto and the simulator, creates the stack's table, topics (each with a queue) and
 * token, and writes the rules validated, as synth ships them; sets the environment the deployed
 * functions read (`TELEALERT_CONFIG_FILE`, `TELEALERT_TABLE`, `TELEALERT_TOPICS`, metrics off).
 */
export async function startRuntimeHarness(options: RuntimeHarnessOptions): Promise<RuntimeHarness> {
  const moto: Moto = await startMoto();
  moto.applyEnv();
  const stack = await createFakeStack({
    prefix: options.prefix,
    channels: options.channels ?? {
      oncall: {},
      managers: { minSeverity: 'critical' },
      finance: {},
    },
    tokenParameter: TOKEN_PARAMETER,
    token: TOKEN,
  });
  const simulator = await startSimulator({
    port: 0,
    scenario: options.scenario,
    clock: options.clock,
    token: TOKEN,
  });
  const directory = await mkdtemp(join(tmpdir(), `telealert-${options.prefix}-`));
  const rules =
    options.rules?.(simulator.url, TOKEN_PARAMETER) ??
    rulesFile(simulator.url, TOKEN_PARAMETER, options.samples);
  useDeployedEnvironment(stack, directory, rules);
  const dynamodb = new DynamoDBClient({});
  const stream = await StreamMapping.open({
    streamArn: stack.streamArn,
    filters: [NOTIFIER_STREAM_FILTER],
  });

  return {
    stack,
    simulator,
    directory,
    async tableKeys(partition) {
      const { Items = [] } = await dynamodb.send(
        new QueryCommand({
          TableName: stack.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: partition } },
          ConsistentRead: true,
        }),
      );
      return Items.map((item) => item.sk?.S ?? '');
    },
    streamToNotifier(notifier) {
      const handler = notifier as (
        event: DynamoDBStreamEvent,
        context: Context,
      ) => Promise<NotifierSummary>;
      return stream.deliver((event) => handler(event, lambdaContext()));
    },
    async close() {
      stream.close();
      dynamodb.destroy();
      await simulator.close();
      stack.destroy();
      await moto.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Writes `rulesText` validated, as synth ships it, into `directory`, and sets the environment the
 * deployed functions read (`TELEALERT_CONFIG_FILE`, `TELEALERT_TABLE`, the notifier's
 * `TELEALERT_TOPICS`, metrics off).
 */
export function useDeployedEnvironment(
  stack: FakeStack,
  directory: string,
  rulesText: string,
): void {
  const configFile = join(directory, 'telealert.json');
  writeEmbeddedConfig(configFile, parseConfig(rulesText, 'telealert.yaml'));
  process.env.TELEALERT_CONFIG_FILE = configFile;
  process.env.TELEALERT_TABLE = stack.tableName;
  process.env.TELEALERT_TOPICS = JSON.stringify(stack.topics);
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

/** A logger that writes nothing: these tests read the queues and the table, not the logs. */
export function silentLogger(): Logger {
  return new Logger({ serviceName: 'telealert', logLevel: 'SILENT' });
}

let invocations = 0;

/** A Lambda context with a minute left, as EventBridge's one-minute schedule gives. */
export function lambdaContext(remainingMs = 60_000): Context {
  invocations += 1;
  return {
    awsRequestId: `req-${invocations}`,
    functionName: 'telealert-poller',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:telealert-poller',
    memoryLimitInMB: '256',
    logGroupName: '/aws/lambda/telealert-poller',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

type Handler = (event: { id: string }, context: Context) => Promise<unknown>;

/** Invokes a handler as EventBridge would, once (a poller's answer is its run summary). */
export function invoke<T = RunSummary>(handler: unknown): Promise<T> {
  const context = lambdaContext();
  return (handler as Handler)({ id: `event-${context.awsRequestId}` }, context) as Promise<T>;
}
