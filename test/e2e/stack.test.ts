import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Message } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMBEDDED_CONFIG_FILE, embedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import { ManualClock } from '../../simulator/clock';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { type BundledFunction, deployToMoto, type MotoDeployment, type StandIn } from './deploy';
import { type Moto, startMoto } from './moto';
import { DID_A, e2eScenario, MINUTE } from './scenario';
import { readStack, resourcesOfType, type SynthesizedStack, synthesize } from './template';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'stack-rules.yaml');
const FIXTURE_BASE_URL = 'http://127.0.0.1:9';
const clock = new ManualClock(T0);
let moto: Moto;
let simulator: RunningSimulator;
let directory: string;
let rules: string;
let stack: SynthesizedStack;
let deployment: MotoDeployment;
let invocations = 0;
type Handler = (event: { id: string }, context: Context) => Promise<Record<string, unknown>>;
const handlers: Record<string, Handler> = {};

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

/** What Lambda puts in a function's environment beside the template's variables. */
function lambdaEnvironment(fn: BundledFunction): Record<string, string> {
  return {
    ...fn.environment,
    LAMBDA_TASK_ROOT: fn.assetDir,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
  };
}

/**
 * Runs `action` with `fn`'s Lambda environment in `process.env`, then puts back what was there,
 * so one function's variables (the live calls' sample queue URL) never leak into the other's.
 */
async function inEnvironment<T>(fn: BundledFunction, action: () => Promise<T>): Promise<T> {
  const environment = lambdaEnvironment(fn);
  const before = Object.keys(environment).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, environment);
  try {
    return await action();
  } finally {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

function functionOf(source: string): BundledFunction {
  const fn = deployment.functions.find((f) => f.cdkPath.includes(`/Poller-${source}/`));
  if (!fn) throw new Error(`no function for ${source} in the template`);
  return fn;
}

/** Runs a bundled handler as Lambda would: its environment, a context, a scheduled event. */
async function invoke(source: string): Promise<Record<string, unknown>> {
  const fn = functionOf(source);
  invocations += 1;
  const context = {
    awsRequestId: `req-${invocations}`,
    functionName: fn.logicalId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${fn.logicalId}`,
    memoryLimitInMB: '256',
    logGroupName: `/aws/lambda/${fn.logicalId}`,
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 55_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  } satisfies Context;
  const handler = handlers[source];
  if (!handler) throw new Error(`bundle of ${source} not loaded`);
  return inEnvironment(fn, () => handler({ id: `event-${invocations}` }, context));
}

/** The topics the template's CloudWatch alarms notify, as moto made them. */
function alarmTopicArns(): Set<string> {
  const arns = new Set<string>();
  for (const [, alarm] of resourcesOfType(stack, 'AWS::CloudWatch::Alarm')) {
    const actions = (alarm.Properties?.AlarmActions ?? []) as { Ref?: string }[];
    for (const { Ref } of actions) {
      const arn = Ref === undefined ? undefined : deployment.physical[Ref]?.ref;
      if (arn !== undefined) arns.add(arn);
    }
  }
  return arns;
}

/** The stand-in of a subscription to a channel's topic, or (`alarms`) to its alarm topic. */
function standIn(protocol: string, endpoint: string, alarms = false): StandIn {
  const alarmTopics = alarmTopicArns();
  const found = deployment.standIns.find(
    (s) =>
      s.protocol === protocol && s.endpoint === endpoint && alarmTopics.has(s.topicArn) === alarms,
  );
  if (!found) throw new Error(`no ${protocol} subscription for ${endpoint} in the template`);
  return found;
}

/** `rule:status:labels:severity` of each notification that reached a subscription's stand-in. */
async function received(protocol: string, endpoint: string): Promise<string[]> {
  const messages = await deployment.drain(standIn(protocol, endpoint));
  return messages.map(brief).sort();
}

function brief(message: Message): string {
  const body = JSON.parse(message.Body ?? '{}') as {
    rule: string;
    status: string;
    labels: Record<string, string>;
  };
  const severity = message.MessageAttributes?.severity?.StringValue;
  return `${body.rule}:${body.status}:${Object.values(body.labels).join(',')}:${severity}`;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-e2e-stack-'));
  simulator = await startSimulator({ port: 0, scenario: e2eScenario, clock, token: 'token-1' });
  const configFile = join(directory, 'telealert.yaml');
  rules = (await readFile(FIXTURE, 'utf8')).replace(FIXTURE_BASE_URL, simulator.url);
  await writeFile(configFile, rules);
  const outdir = join(directory, 'cdk.out');
  // Synth before moto's settings enter the environment: it must need no AWS at all.
  [moto] = await Promise.all([startMoto(), synthesize(configFile, outdir)]);
  moto.applyEnv();
  delete process.env.TELEALERT_CONFIG_FILE;
  stack = readStack(outdir);
  deployment = await deployToMoto(stack, {
    endpoint: moto.endpoint,
    prefix: 'e2e-stack',
    token: 'token-1',
  });
  for (const source of ['live_calls', 'payments']) {
    const fn = functionOf(source);
    // Powertools reads its settings when the module loads, as in a fresh container.
    const module = await inEnvironment(
      fn,
      async () =>
        (await import(pathToFileURL(join(fn.assetDir, fn.file)).href)) as Record<string, unknown>,
    );
    handlers[source] = module[fn.exportName] as Handler;
  }
  vi.useFakeTimers({ toFake: ['Date'] });
}, 180_000);

afterAll(async () => {
  vi.useRealTimers();
  await simulator?.close();
  deployment?.destroy();
  await moto?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

// One timeline: each test continues where the previous one left off.
describe('Synthesized stack on moto: the bundled handlers from cdk.out', () => {
  it('ships each handler with the rules file and the config validated from it beside it, and a resolved environment', () => {
    const [[tableId] = []] = resourcesOfType(stack, 'AWS::DynamoDB::Table');
    expect(tableId).toBeDefined();
    expect(deployment.functions.map((fn) => fn.cdkPath).sort()).toEqual([
      'Telealert/Telealert/Poller-live_calls/Function/Resource',
      'Telealert/Telealert/Poller-payments/Function/Resource',
    ]);
    for (const fn of deployment.functions) {
      expect(existsSync(join(fn.assetDir, fn.file))).toBe(true);
      expect(readFileSync(join(fn.assetDir, 'telealert.yaml'), 'utf8')).toBe(rules);
      // What the runtime reads at cold start: the same rules, validated at synth.
      expect(readFileSync(join(fn.assetDir, EMBEDDED_CONFIG_FILE), 'utf8')).toBe(
        embedConfig(parseConfig(rules, 'telealert.yaml')).text,
      );
      expect(fn.environment.TELEALERT_TABLE).toBe(deployment.physical[tableId ?? '']?.ref);
      const topics = JSON.parse(fn.environment.TELEALERT_TOPICS ?? '') as Record<string, string>;
      expect(Object.keys(topics).sort()).toEqual(['finance', 'managers', 'oncall']);
      const alarmTopics = alarmTopicArns();
      expect(new Set(Object.values(topics))).toEqual(
        new Set(deployment.standIns.map((s) => s.topicArn).filter((t) => !alarmTopics.has(t))),
      );
    }
    expect(deployment.tokenParameter).toBe('/e2e-stack/api-token');
  });

  it("subscribes each stand-in with its subscription's filter policy from the template", () => {
    const alarmTopics = alarmTopicArns();
    const policies = Object.fromEntries(
      deployment.standIns.map((s) => [
        `${s.protocol}:${s.endpoint}${alarmTopics.has(s.topicArn) ? ' (alarms)' : ''}`,
        s.filterPolicy,
      ]),
    );
    expect(policies).toEqual({
      'sms:+15550100': undefined,
      'email:oncall@example.com': undefined,
      'sms:+15550101': '{"severity":["critical"]}',
      'email:managers@example.com': '{"severity":["critical"]}',
      'email:finance@example.com': '{"severity":["warning","critical"]}',
      // health.notify is [managers]: its alarms go through a topic of their own, unfiltered.
      'sms:+15550101 (alarms)': undefined,
      'email:managers@example.com (alarms)': undefined,
    });
  });

  it('delivers firing alerts to every subscription of their channels, per minSeverity', async () => {
    at(30_000);
    expect(await invoke('live_calls')).toMatchObject({ samples: 1, sent: 2, failures: 0 });
    const both = ['any-ringing:firing::warning', `too-many-ringing:firing:${DID_A}:critical`];
    expect(await received('sms', '+15550100')).toEqual(both);
    expect(await received('email', 'oncall@example.com')).toEqual(both);
    const critical = [`too-many-ringing:firing:${DID_A}:critical`];
    expect(await received('sms', '+15550101')).toEqual(critical);
    expect(await received('email', 'managers@example.com')).toEqual(critical);

    expect(await invoke('payments')).toMatchObject({ sent: 1, failures: 0 });
    const finance = await received('email', 'finance@example.com');
    expect(finance).toHaveLength(1);
    expect(finance[0]).toMatch(/^big-payment:firing:.+:warning$/);
  });

  it('sends resolved messages once the calls are gone, and nothing twice', async () => {
    at(90_000);
    expect(await invoke('live_calls')).toMatchObject({ sent: 0 });
    expect(await received('sms', '+15550100')).toEqual([]);

    at(4 * MINUTE);
    expect(await invoke('live_calls')).toMatchObject({ sent: 2 });
    const both = ['any-ringing:resolved::warning', `too-many-ringing:resolved:${DID_A}:critical`];
    expect(await received('sms', '+15550100')).toEqual(both);
    expect(await received('email', 'oncall@example.com')).toEqual(both);
    const critical = [`too-many-ringing:resolved:${DID_A}:critical`];
    expect(await received('sms', '+15550101')).toEqual(critical);
    expect(await received('email', 'managers@example.com')).toEqual(critical);
    expect(await received('email', 'finance@example.com')).toEqual([]);
  });

  it('delivers a CloudWatch alarm message (no attributes) to a minSeverity channel through its alarm topic only', async () => {
    const managers = ['sms:+15550101', 'email:managers@example.com'].map((s) => s.split(/:(.*)/s));
    const alarmTopics = [...alarmTopicArns()];
    expect(alarmTopics).toEqual([standIn('email', 'managers@example.com', true).topicArn]);
    const alarm = { AlarmName: 'dead-mans-switch', NewStateValue: 'ALARM' };
    const sns = new SNSClient({});
    try {
      for (const TopicArn of [alarmTopics[0], standIn('email', 'managers@example.com').topicArn]) {
        await sns.send(
          new PublishCommand({
            TopicArn,
            Subject: 'ALARM: "telealert-live_calls-dead-mans-switch"',
            Message: JSON.stringify(alarm),
          }),
        );
      }
    } finally {
      sns.destroy();
    }
    for (const [protocol = '', endpoint = ''] of managers) {
      const viaAlarms = await deployment.drain(standIn(protocol, endpoint, true));
      expect(viaAlarms.map((m) => JSON.parse(m.Body ?? '{}'))).toEqual([alarm]);
      // The channel's own topic filters on `severity`: a message without attributes is dropped,
      // as SNS drops it, which is why the alarms have a topic of their own.
      expect(await deployment.drain(standIn(protocol, endpoint))).toEqual([]);
    }
  });
});
