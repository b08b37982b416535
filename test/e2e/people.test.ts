import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { Scenario } from '../../simulator/scenarios/types';
import { memoryIo } from '../cli/io';
import {
  invoke,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
  TOKEN_PARAMETER,
} from './lambda';

/** Saturday 21 November 2026, 10:00 in India. */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const MINUTE = 60_000;
const STACK = 'e2e-people';
const ACK_DID = '+918000000099';
const ONCALL_PHONE = '+919800000001';
const DID = DIDS[0] as string;
const AGENT = AGENTS[0] as (typeof AGENTS)[number];

/**
 * One call rings on DID for half an hour; at 12 min the on-call calls the ack number (its
 * caller ID written as the API may); one large payment is pending from 10 s.
 */
const scenario: Scenario = {
  name: 'people',
  description: 'a long ringing call, an ack call, a large payment',
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
          agents: [AGENT],
        },
        {
          serial: 2,
          startMs: 12 * MINUTE,
          ringMs: MINUTE,
          direction: 1,
          did: ACK_DID,
          caller: ONCALL_PHONE,
          agents: [AGENT],
        },
      ],
      payments: [{ serial: 1, atMs: 10_000, paidPaise: 150_000_00, gateway: 'Razorpay' }],
    };
  },
};

function rules(baseUrl: string, tokenParameter: string): string {
  return `
timezone: Asia/Kolkata
api: { baseUrl: ${baseUrl}, tokenParameter: ${tokenParameter}, timeout: 5s }
sources:
  live_calls: { every: 1m }
  payments: { every: 5m, lookback: 24h }
channels:
  oncall: { sms: ["${ONCALL_PHONE}"], email: [oncall@example.com] }
  leads: { email: [leads@example.com] }
  managers: { email: [managers@example.com] }
  finance: { email: [finance@example.com] }
rules:
  - name: ringing-on-did
    source: live_calls
    where: { state: Ringing }
    count: ">= 1"
    groupBy: [did]
    severity: critical
    notify: [oncall]
    escalate:
      - { after: 10m, notify: [leads] }
      - { after: 20m, notify: [managers] }
  - name: big-payment
    source: payments
    where: { amount_paid: ">= 100000" }
    notify: [finance]
ack: { did: "${ACK_DID}" }
`;
}

const clock = new ManualClock(T0);
let harness: RuntimeHarness;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

const told = async (channel: string) =>
  ((await harness.stack.drain(channel)) as unknown as Message[]).map(
    (m) => `${m.kind}: ${m.alerts.map((a) => `${a.rule} ${a.status}`).join(', ')}`,
  );

/** `telealert ARGS --stack e2e-people` as a user on their machine runs it. */
async function telealert(...args: string[]) {
  const io = {
    ...memoryIo({ cwd: harness.directory, env: { USER: 'asha' } }),
    now: () => clock.now(),
  };
  const code = await runCli([...args, '--stack', STACK], io);
  return { code, out: io.out(), err: io.err(), lines: io.outLines() };
}

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2p',
    scenario,
    clock,
    channels: { oncall: {}, leads: {}, managers: {}, finance: {} },
    rules,
  });
  // What `cdk deploy` leaves for the CLI to find: a stack whose outputs name the table.
  await new CloudFormationClient({}).send(
    new CreateStackCommand({
      StackName: STACK,
      TemplateBody: JSON.stringify({
        Resources: { Topic: { Type: 'AWS::SNS::Topic' } },
        Outputs: { TableName: { Value: harness.stack.tableName } },
      }),
    }),
  );
  // The rules file as written, where the user runs the CLI (it reads it from there).
  await writeFile(
    join(harness.directory, 'telealert.yaml'),
    rules(harness.simulator.url, TOKEN_PARAMETER),
  );
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('People answer back on moto: silences and acks in the deployed table, escalation on the notifier clock', () => {
  const logger = silentLogger();
  const liveCalls = createPollerHandler('live_calls', { logger });
  const payments = createPollerHandler('payments', { logger });
  const notifier = createNotifierHandler({ logger });

  it('writes a silence to the deployed table with --stack, and the next poller run suppresses', async () => {
    at(T0 + 20_000);
    const added = await telealert(
      'silence',
      'add',
      '--match',
      'rule=big-payment',
      '--for',
      '2h',
      '--comment',
      'month-end batch',
    );
    expect(added.code, added.err).toBe(0);
    // First, where it acted: the stack, its table and region.
    expect(added.err.split('\n')[0]).toBe(
      `stack ${STACK} (table ${harness.stack.tableName}, region ${process.env.AWS_REGION})`,
    );
    const id = added.out.trim();
    at(T0 + 30_000);
    await invoke(payments);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await told('finance')).toEqual([]);
    expect(await told('oncall')).toEqual(['alerts: ringing-on-did firing']);
    const listed = await telealert('silence', 'list', '--json');
    expect(listed.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ id, state: 'active', createdBy: 'asha', silenced: 1 }),
    ]);
  });

  it('escalates an unacknowledged alert from the notifier alone, with no poller running', async () => {
    at(T0 + 10 * MINUTE + 30_000);
    const step = await invoke<NotifierSummary>(notifier);
    expect(step.decided.map((item) => item.kind)).toEqual(['escalation']);
    expect(await told('leads')).toEqual(['escalation: ringing-on-did firing']);
    expect(await told('oncall')).toEqual([]);
  });

  it('acknowledges by a call to ack.did seen by the live-calls poller: confirmed, and no further step', async () => {
    at(T0 + 12 * MINUTE + 30_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    const oncall = (await harness.stack.drain('oncall')) as unknown as Message[];
    expect(oncall.map((m) => [m.kind, m.sms])).toEqual([
      ['ack', `ACK by ${ONCALL_PHONE} until 10:42: 1 alert: ringing-on-did ${DID} CRITICAL`],
    ]);
    const alerts = await telealert('alerts', '--rule', 'ringing-on-did', '--json');
    expect(alerts.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        key: `ringing-on-did{did=${DID}}`,
        state: 'firing',
        acknowledgedBy: ONCALL_PHONE,
      }),
    ]);
    at(T0 + 20 * MINUTE + 30_000);
    await invoke<NotifierSummary>(notifier);
    expect(await told('managers')).toEqual([]);
  });
});
