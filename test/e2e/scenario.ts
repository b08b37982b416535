import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { CallEvent, Scenario } from '../../simulator/scenarios/types';

export const MINUTE = 60_000;

function at<T>(list: readonly T[], index: number): T {
  const item = list[index % list.length];
  if (item === undefined) throw new Error(`the simulator roster has no entry ${index}`);
  return item;
}
const agents = (from: number) => [0, 1, 2].map((i) => at(AGENTS, from + i));

/** Three calls ringing together on one DID from `startMs`, unanswered for three minutes. */
function burst(firstSerial: number, startMs: number, did: string, agentFrom: number): CallEvent[] {
  return agents(agentFrom).map((agent, i) => ({
    serial: firstSerial + i,
    startMs,
    ringMs: 3 * MINUTE,
    direction: 1,
    did,
    caller: `+9190000000${firstSerial + i}`,
    agents: [agent],
  }));
}

export const DID_A = at(DIDS, 0);
export const DID_B = at(DIDS, 1);
export const DID_C = at(DIDS, 2);

/**
 * The e2e timeline, in one window: bursts of three ringing calls at 0 (DID A), 5 min (DID B)
 * and 10 min (DID C), each gone after 3 min; one payment of 150000.00 stuck pending at 10 s.
 */
export const e2eScenario: Scenario = {
  name: 'e2e',
  description: 'three ringing bursts and one large pending payment',
  windowMs: 60 * MINUTE,
  maxCallMs: 4 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return {
      calls: [
        ...burst(1, 0, DID_A, 0),
        ...burst(4, 5 * MINUTE, DID_B, 3),
        ...burst(7, 10 * MINUTE, DID_C, 5),
      ],
      payments: [{ serial: 1, atMs: 10_000, paidPaise: 150_000_00, gateway: 'Razorpay' }],
    };
  },
};

/** The e2e rules; `samples` is `sources.live_calls.samples` (sub-minute sampling). */
export function rulesFile(baseUrl: string, tokenParameter: string, samples = 1): string {
  return `
timezone: Asia/Kolkata
api:
  baseUrl: ${baseUrl}
  tokenParameter: ${tokenParameter}
  timeout: 5s
sources:
  live_calls: { every: 1m, samples: ${samples} }
  payments: { every: 5m, lookback: 24h }
health: { after: 2, notify: [oncall] }
channels:
  oncall: { sms: ["+12025550100"] }
  managers: { email: [managers@example.com], minSeverity: critical }
  finance: { email: [finance@example.com] }
rules:
  - name: too-many-ringing
    source: live_calls
    where: { state: Ringing }
    count: ">= 3"
    groupBy: [did]
    severity: critical
    notify: [oncall, managers]
  - name: any-ringing
    source: live_calls
    where: { state: Ringing }
    count: ">= 1"
    severity: warning
    notify: [oncall, managers]
  - name: big-payment
    source: payments
    where: { amount_paid: ">= 100000" }
    severity: warning
    notify: [finance]
`;
}

/**
 * The e2e rules with every channel's group interval at 0: each notifier round tells what the
 * pollers committed since the last one at once, so a test of the pollers reads each run's
 * events as messages right after it.
 */
export function rulesToldAtOnce(baseUrl: string, tokenParameter: string, samples = 1): string {
  const rules = rulesFile(baseUrl, tokenParameter, samples);
  const channels = [
    'oncall: { sms: ["+12025550100"] }',
    'managers: { email: [managers@example.com], minSeverity: critical }',
    'finance: { email: [finance@example.com] }',
  ];
  return channels.reduce((text, channel) => {
    if (!text.includes(channel)) throw new Error(`the e2e rules no longer have ${channel}`);
    return text.replace(channel, `${channel.slice(0, -2)}, group: { interval: 0s } }`);
  }, rules);
}
