import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import { memberFilter, severityFilter, withoutHandoffs } from '../../infra/topics';
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
import { StandIns } from './stand-ins';

/**
 * Saturday 21 November 2026, 10:00 in India: Asha's shift, Ravi's from 10:30. The channel takes
 * critical alerts only (`minSeverity`), so a handoff with nothing firing proves the members'
 * filters let handoffs through whatever they tell.
 */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const MINUTE = 60_000;
const STACK = 'e2e-oncall';
const DID = DIDS[0] as string;
const AGENT = AGENTS[0] as (typeof AGENTS)[number];

/** One call rings on DID for two hours. */
const scenario: Scenario = {
  name: 'oncall',
  description: 'a call left ringing across a handoff',
  windowMs: 180 * MINUTE,
  maxCallMs: 130 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return {
      calls: [
        {
          serial: 1,
          startMs: 0,
          ringMs: 120 * MINUTE,
          direction: 1,
          did: DID,
          caller: '+919000000001',
          agents: [AGENT],
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
sources:
  live_calls: { every: 1m }
people:
  asha: { sms: "+919800000001", email: asha@example.com }
  ravi: { sms: "+919800000002", email: ravi@example.com }
rotations:
  primary: { members: [asha, ravi], shift: 1d, handoff: "10:30", start: "2026-11-20" }
channels:
  oncall: { rotation: primary, email: [ops-list@example.com], minSeverity: critical }
rules:
  - name: ringing-on-did
    source: live_calls
    where: { state: Ringing }
    count: ">= 1"
    groupBy: [did]
    repeat: 10m
    severity: critical
    notify: [oncall]
`;
}

const clock = new ManualClock(T0);
let harness: RuntimeHarness;
/** SQS stand-ins of each person's SMS and email subscription, with the stack's filter policies. */
let standIns: StandIns;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

/** What reached a stand-in since the last look, as `kind oncall`. */
const reached = (name: string) =>
  standIns.reached(name, (body) => `${body.kind} ${body.oncall ?? '-'}`);

/** The fixed list: an SQS stand-in of `ops-list@example.com` with the stack's filter policy. */
const fixedList = () => reached('ops-list email');

async function telealert(...args: string[]) {
  const io = {
    ...memoryIo({ cwd: harness.directory, env: { USER: 'lead' } }),
    now: () => clock.now(),
  };
  const code = await runCli([...args, '--stack', STACK], io);
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
  standIns = new StandIns('e2o');
  const topic = harness.stack.topics.oncall;
  if (topic === undefined) throw new Error('the deployed stack has no topic for oncall');
  for (const person of ['asha', 'ravi']) {
    await standIns.add(topic, `${person} sms`, memberFilter(person, 'critical', true));
    await standIns.add(topic, `${person} email`, memberFilter(person, 'critical', false));
  }
  await standIns.add(topic, 'ops-list email', withoutHandoffs(severityFilter('critical')));
  await new CloudFormationClient({}).send(
    new CreateStackCommand({
      StackName: STACK,
      TemplateBody: JSON.stringify({
        Resources: { Topic: { Type: 'AWS::SNS::Topic' } },
        Outputs: { TableName: { Value: harness.stack.tableName } },
      }),
    }),
  );
  await writeFile(
    join(harness.directory, 'telealert.yaml'),
    rules(harness.simulator.url, TOKEN_PARAMETER),
  );
  vi.useFakeTimers({ toFake: ['Date'] });
}, 180_000);

afterAll(async () => {
  vi.useRealTimers();
  standIns?.destroy();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('Who is on call, on moto: SNS delivers to the person on call alone', () => {
  const logger = silentLogger();
  const liveCalls = createPollerHandler('live_calls', { logger });
  const notifier = createNotifierHandler({ logger });

  it("pages the person on call before the handoff: their SMS and email, and the fixed list, no one else's", async () => {
    at(T0 + 30_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('asha sms')).toEqual(['alerts asha', 'handoff asha']);
    expect(await reached('asha email')).toEqual(['alerts asha', 'handoff asha']);
    expect(await reached('ravi sms')).toEqual([]);
    expect(await reached('ravi email')).toEqual([]);
    // The fixed list hears every page, whoever is on call, but not the handoffs.
    expect(await fixedList()).toEqual(['alerts asha']);
  });

  it('hands over on the notifier minute alone, and the repeat after it reaches the next person', async () => {
    at(T0 + 30 * MINUTE + 10_000);
    await invoke(notifier);
    expect(await reached('ravi sms')).toEqual(['handoff ravi']);
    expect(await reached('ravi email')).toEqual(['handoff ravi']);
    expect(await reached('asha sms')).toEqual([]);
    at(T0 + 31 * MINUTE);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('ravi sms')).toEqual(['alerts ravi']);
    expect(await reached('ravi email')).toEqual(['alerts ravi']);
    expect(await reached('asha sms')).toEqual([]);
    expect(await reached('asha email')).toEqual([]);
    expect(await fixedList()).toEqual(['alerts ravi']);
  });

  it('routes to the person an override written with --stack names, with no change of subscription', async () => {
    at(T0 + 35 * MINUTE);
    const added = await telealert(
      'oncall',
      'override',
      '--rotation',
      'primary',
      '--who',
      'asha',
      '--until',
      '2026-11-21 12:00',
    );
    expect(added.code, added.err).toBe(0);
    at(T0 + 35 * MINUTE + 30_000);
    await invoke(notifier);
    expect(await reached('asha sms')).toEqual(['handoff asha']);
    at(T0 + 41 * MINUTE);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('asha sms')).toEqual(['alerts asha']);
    expect(await reached('asha email')).toEqual(['handoff asha', 'alerts asha']);
    expect(await reached('ravi sms')).toEqual([]);
    expect(await reached('ravi email')).toEqual([]);
    expect(await fixedList()).toEqual(['alerts asha']);
    const shown = await telealert('oncall', '--json');
    expect(JSON.parse(shown.out)).toMatchObject({ rotation: 'primary', oncall: 'asha' });
  });

  it('hands back when the override ends, telling the incoming person with nothing firing despite minSeverity', async () => {
    // The call stopped ringing at 12:00, when asha's override ended: the poll after it resolves
    // the alert, and the same notifier step hands the pager back to ravi with nothing firing.
    at(T0 + 125 * MINUTE);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('ravi sms')).toEqual(['alerts ravi', 'handoff ravi']);
    expect(await reached('ravi email')).toEqual(['alerts ravi', 'handoff ravi']);
    expect(await reached('asha sms')).toEqual([]);
    expect(await reached('asha email')).toEqual([]);
    expect(await fixedList()).toEqual(['alerts ravi']);
  });
});
