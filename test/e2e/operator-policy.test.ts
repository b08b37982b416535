import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main';
import { NOTIFIER_PARTITION } from '../../functions/adapters/dynamodb-requests';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import { OPERATOR_PARTITION, OperatorPolicy } from '../../infra/operator';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { Scenario } from '../../simulator/scenarios/types';
import { memoryIo } from '../cli/io';
import { lambdaContext, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const MINUTE = 60_000;
const STACK = 'e2e-operator';
const DID = DIDS[0] as string;

/** One call rings for half an hour: one firing alert to acknowledge and silence. */
const scenario: Scenario = {
  name: 'operator',
  description: 'a long ringing call',
  windowMs: 60 * MINUTE,
  maxCallMs: 40 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return {
      calls: [
        {
          serial: 1,
          startMs: 0,
          ringMs: 30 * MINUTE,
          direction: 1,
          did: DID,
          caller: '+919000000001',
          agents: [AGENTS[0] as (typeof AGENTS)[number]],
        },
      ],
      payments: [],
    };
  },
};

function rules(baseUrl: string, tokenParameter: string): string {
  return `
timezone: Asia/Kolkata
api: { baseUrl: ${baseUrl}, tokenParameter: ${tokenParameter}, timeout: 5s }
channels:
  oncall: { email: [oncall@example.com] }
rules:
  - name: ringing-on-did
    source: live_calls
    where: { state: Ringing }
    count: ">= 1"
    groupBy: [did]
    repeat: 10m
    notify: [oncall]
`;
}

interface Call {
  readonly action: string;
  /** The partition each item the call reads or writes is in. */
  readonly partitions: readonly string[];
}

interface Statement {
  readonly Action: string | string[];
  readonly Condition?: Record<string, Record<string, string[]>>;
}

/** The operator policy's statements, as `cdk synth` writes them. */
function operatorStatements(): Statement[] {
  const stack = new Stack(new App(), 'Policy');
  const table = new Table(stack, 'State', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    sortKey: { name: 'sk', type: AttributeType.STRING },
  });
  new OperatorPolicy(stack, 'Operators', { table });
  const policies = Template.fromStack(stack).findResources('AWS::IAM::ManagedPolicy');
  const [policy] = Object.values(policies) as {
    Properties: { PolicyDocument: { Statement: Statement[] } };
  }[];
  return policy?.Properties.PolicyDocument.Statement ?? [];
}

/** IAM's answer for the statements used here: an action allowed, under its LeadingKeys condition. */
function allowed(statements: readonly Statement[], call: Call): boolean {
  return statements.some((statement) => {
    const actions = [statement.Action].flat();
    if (!actions.includes(call.action)) return false;
    const keys = statement.Condition?.['ForAllValues:StringEquals']?.['dynamodb:LeadingKeys'];
    return keys === undefined || call.partitions.every((pk) => keys.includes(pk));
  });
}

/** The partition keys a DynamoDB request names (its `Key`, `Item` or key condition's values). */
function partitionsOf(input: Record<string, unknown>): string[] {
  const pk = (item: unknown) => (item as { pk?: { S?: string } } | undefined)?.pk?.S;
  const found = [pk(input.Key), pk(input.Item)];
  const values = input.ExpressionAttributeValues as Record<string, { S?: string }> | undefined;
  if (typeof input.KeyConditionExpression === 'string' && values) {
    const name = /pk\s*=\s*(:\w+)/.exec(input.KeyConditionExpression)?.[1];
    if (name) found.push(values[name]?.S);
  }
  return found.filter((value): value is string => value !== undefined);
}

const clock = new ManualClock(T0);
let harness: RuntimeHarness;
const calls: Call[] = [];

async function telealert(...args: string[]) {
  const io = { ...memoryIo({ cwd: harness.directory, env: {} }), now: () => clock.now() };
  const code = await runCli([...args, '--by', 'asha', '--stack', STACK], io);
  return { code, out: io.out(), err: io.err() };
}

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2o',
    scenario,
    clock,
    channels: { oncall: {} },
    rules,
  });
  await new CloudFormationClient({}).send(
    new CreateStackCommand({
      StackName: STACK,
      TemplateBody: JSON.stringify({
        Resources: { Topic: { Type: 'AWS::SNS::Topic' } },
        Outputs: { TableName: { Value: harness.stack.tableName } },
      }),
    }),
  );
  await writeFile(join(harness.directory, 'telealert.yaml'), rules(harness.simulator.url, 'x'));
  vi.useFakeTimers({ toFake: ['Date'] });
  clock.set(T0 + 30_000);
  vi.setSystemTime(T0 + 30_000);
  const logger = silentLogger();
  await createPollerHandler('live_calls', { logger })({ id: 'poll' }, lambdaContext());
  await harness.streamToNotifier(createNotifierHandler({ logger }));
});

afterAll(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await harness?.close();
});

describe('the OperatorPolicyArn policy', () => {
  it('names the partition the notifier keeps its state in', () => {
    expect(OPERATOR_PARTITION).toBe(NOTIFIER_PARTITION);
  });

  it('allows every call `alerts`, `silence` and `ack --stack` make on moto, and writes only to the notifier partition', async () => {
    const send = DynamoDBClient.prototype.send;
    vi.spyOn(DynamoDBClient.prototype, 'send').mockImplementation(function (
      this: DynamoDBClient,
      command: { constructor: { name: string }; input: Record<string, unknown> },
      ...rest: unknown[]
    ) {
      calls.push({
        action: `dynamodb:${command.constructor.name.replace(/Command$/, '')}`,
        partitions: partitionsOf(command.input),
      });
      return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
    } as typeof send);
    const cfnSend = CloudFormationClient.prototype.send;
    vi.spyOn(CloudFormationClient.prototype, 'send').mockImplementation(function (
      this: CloudFormationClient,
      command: { constructor: { name: string } },
      ...rest: unknown[]
    ) {
      calls.push({
        action: `cloudformation:${command.constructor.name.replace(/Command$/, '')}`,
        partitions: [],
      });
      return (cfnSend as (...args: unknown[]) => unknown).call(this, command, ...rest);
    } as typeof cfnSend);

    const results = [
      await telealert('alerts'),
      await telealert(
        'silence',
        'add',
        '--match',
        'rule=ringing-on-did',
        '--for',
        '1h',
        '--comment',
        'drill',
      ),
      await telealert('silence', 'list', '--json'),
    ];
    const id = /"id":"([^"]+)"/.exec(results[2]?.out ?? '')?.[1] ?? 'none';
    results.push(
      await telealert('silence', 'expire', id),
      await telealert('ack', `ringing-on-did{did=${DID}}`),
      await telealert('ack', '--rule', 'ringing-on-did'),
    );
    for (const result of results) expect(result.code, result.err).toBeLessThan(2);
    expect(results.slice(0, 5).map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);

    const statements = operatorStatements();
    const actions = new Set(calls.map((c) => c.action));
    expect(actions).toContain('cloudformation:DescribeStacks');
    expect(actions).toContain('dynamodb:Query');
    expect([...actions].some((a) => a === 'dynamodb:UpdateItem' || a === 'dynamodb:PutItem')).toBe(
      true,
    );
    expect(calls.filter((call) => !allowed(statements, call))).toEqual([]);
  });

  it('refuses a write to a poller partition, which would let an operator have any text sent', () => {
    const statements = operatorStatements();
    expect(allowed(statements, { action: 'dynamodb:UpdateItem', partitions: ['live_calls'] })).toBe(
      false,
    );
    expect(allowed(statements, { action: 'dynamodb:PutItem', partitions: ['payments'] })).toBe(
      false,
    );
    expect(
      allowed(statements, { action: 'dynamodb:BatchWriteItem', partitions: ['notifier'] }),
    ).toBe(false);
    expect(allowed(statements, { action: 'dynamodb:UpdateItem', partitions: ['notifier'] })).toBe(
      true,
    );
  });
});
