import type { SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import { memberFilter, severityFilter, smsFilter } from '../../infra/topics';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { Scenario } from '../../simulator/scenarios/types';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { StandIns } from './stand-ins';

/**
 * Contract 6.1 rule 7 on moto: an ack's confirmation goes to its caller alone, whatever the
 * channel's `minSeverity`. Saturday 21 November 2026, 10:00 in India; nothing fires. `oncall`
 * (as shipped: `minSeverity: warning`) has two numbers; `primary` pages a rotation (Asha on
 * call, Ravi not). The first number calls the ack number at 10:01, Ravi at 10:03.
 */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const MINUTE = 60_000;
const ACK_DID = '+918000000099';
const FIRST = '+919800000001';
const SECOND = '+919800000002';
const ASHA = '+919800000003';
const RAVI = '+919800000004';
const AGENT = AGENTS[0] as (typeof AGENTS)[number];

const call = (serial: number, startMs: number, caller: string) => ({
  serial,
  startMs,
  ringMs: 20_000,
  direction: 1 as const,
  did: ACK_DID,
  caller,
  agents: [AGENT],
});

const scenario: Scenario = {
  name: 'ack-call',
  description: 'two calls to the ack number, nothing firing',
  windowMs: 30 * MINUTE,
  maxCallMs: MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return { calls: [call(1, MINUTE, FIRST), call(2, 3 * MINUTE, RAVI)], payments: [] };
  },
};

function rules(baseUrl: string, tokenParameter: string): string {
  return `
timezone: Asia/Kolkata
api: { baseUrl: ${baseUrl}, tokenParameter: ${tokenParameter}, timeout: 5s }
sources:
  live_calls: { every: 1m }
people:
  asha: { sms: "${ASHA}" }
  ravi: { sms: "${RAVI}" }
rotations:
  primary: { members: [asha, ravi], shift: 1d, handoff: "09:00", start: "2026-11-21" }
channels:
  oncall: { sms: ["${FIRST}", "${SECOND}"], email: [oncall@example.com], minSeverity: warning }
  primary: { rotation: primary, minSeverity: warning }
rules:
  - name: ringing-on-did
    source: live_calls
    where: { state: Ringing, did: "${DIDS[0]}" }
    notify: [oncall, primary]
ack: { did: "${ACK_DID}" }
`;
}

const clock = new ManualClock(T0);
let harness: RuntimeHarness;
/** SQS stand-ins of the subscriptions, each with the filter policy the stack gives it. */
let standIns: StandIns;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

/** What reached a stand-in since the last look, as `kind to` (`-`: addressed to nobody). */
const reached = (name: string) =>
  standIns.reached(name, (body) => `${body.kind} ${body.to ?? '-'}`);

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2a',
    scenario,
    clock,
    channels: { oncall: { minSeverity: 'warning' }, primary: { minSeverity: 'warning' } },
    rules,
  });
  standIns = new StandIns('e2a');
  const topicOf = (channel: string) => {
    const topic = harness.stack.topics[channel];
    if (topic === undefined) throw new Error(`the deployed stack has no topic for ${channel}`);
    return topic;
  };
  const standIn = (channel: string, name: string, filter: Record<string, SubscriptionFilter>) =>
    standIns.add(topicOf(channel), name, filter);
  const warning = severityFilter('warning');
  await standIn('oncall', 'first sms', smsFilter(FIRST, warning));
  await standIn('oncall', 'second sms', smsFilter(SECOND, warning));
  await standIn('oncall', 'oncall email', warning);
  await standIn('primary', 'asha sms', memberFilter('asha', 'warning', true));
  await standIn('primary', 'ravi sms', memberFilter('ravi', 'warning', true));
  vi.useFakeTimers({ toFake: ['Date'] });
}, 180_000);

afterAll(async () => {
  vi.useRealTimers();
  standIns?.destroy();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('Acknowledgement by call on moto: the confirmation reaches its caller alone', () => {
  const logger = silentLogger();
  const liveCalls = createPollerHandler('live_calls', { logger });
  const notifier = createNotifierHandler({ logger });

  it("reaches the caller's number on a minSeverity: warning channel, and no other subscriber of it", async () => {
    at(T0 + MINUTE + 10_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('first sms')).toEqual([`ack ${FIRST}`]);
    expect(await reached('second sms')).toEqual([]);
    // Nothing was acknowledged: the message is `info`, below the email's minSeverity.
    expect(await reached('oncall email')).toEqual([]);
    // The same publish, as the channel's stack queue (minSeverity alone) saw it.
    const [message] = (await harness.stack.drain('oncall')) as unknown as Message[];
    expect(message).toBeUndefined();
    // The rotation's channel handed the pager to Asha on its first step.
    expect(await reached('asha sms')).toEqual(['handoff -']);
  });

  it('reaches a member of the rotation who is not on call on their own number, not the person on call', async () => {
    at(T0 + 3 * MINUTE + 10_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    expect(await reached('ravi sms')).toEqual([`ack ${RAVI}`]);
    expect(await reached('asha sms')).toEqual([]);
    expect(await reached('first sms')).toEqual([]);
  });
});
