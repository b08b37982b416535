import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeOwed } from '../../functions/adapters/dynamodb-state-items';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import type { Notification } from '../../shared/engine/types';
import type { SourceName } from '../../shared/types/config';
import { ManualClock } from '../../simulator/clock';
import {
  BURST_EVERY_MS,
  BURSTS,
  committedItems,
  FaultPlan,
  faultScenario,
  type Kill,
  PER_RECORD_RULE,
  pollerContainer,
  Sandbox,
  seeded,
  tally,
} from './fault-injection';
import { type FaultProxy, startFaultProxy } from './fault-proxy';
import { type RuntimeHarness, startRuntimeHarness, TOKEN_PARAMETER } from './lambda';
import { MINUTE, rulesFile } from './scenario';

/*
 * Seeded, bounded fault injection between the deployed runtime and moto. The seed fixes the
 * sequence of faults drawn and of runs killed; which of several parallel requests (owed item
 * writes, publish batches) meets a fault still follows their arrival order. Another seed:
 * TELEALERT_FAULT_SEED=n npm run test:e2e -- aws-faults
 */
const SEED = Number(process.env.TELEALERT_FAULT_SEED ?? 20_261_121);
/** Share of requests that meet a fault while faults are on. */
const FAULT_RATE = 0.2;
/** At most this many faults in the whole run, so a bad seed cannot starve every run. */
const MAX_FAULTS = 400;
/** Share of invocations killed mid-way, as the Lambda service kills a sandbox. */
const KILL_RATE = 0.15;
/** Share of faulty runs during which one service (SNS or DynamoDB) refuses every request. */
const OUTAGE_RATE = 0.1;
const CHANNELS = ['oncall', 'managers', 'finance'] as const;

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let direct: DynamoDBClient;

const random = seeded(SEED);
const plan = new FaultPlan(random, { rate: FAULT_RATE, max: MAX_FAULTS });

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

/** Every notification a commit made owed: what the runtime decided to send. */
const decided = new Map<string, Notification>();
const decide = (notifications: readonly Notification[]) => {
  for (const n of notifications) if (!decided.has(n.id)) decided.set(n.id, n);
};

/**
 * A container of one source's poller. Its commits are recorded as decided when the store
 * accepts them; with `kill`, its sandbox dies mid-way.
 */
function container(source: SourceName, kill?: Kill) {
  return pollerContainer(source, new Sandbox(kill), decide);
}

/**
 * The notifications the table holds as owed and committed (an owed item with a commit id the
 * state item recorded): decided, not yet known delivered. Read straight from moto.
 */
async function committedOwed(source: SourceName): Promise<Notification[]> {
  const items = await committedItems(direct, harness.stack.tableName, source);
  return items.map((item) => decodeOwed(item).notification);
}

/** The channels whose subscriptions take `n`: managers' filter policy takes critical only. */
const subscribed = (n: Notification) =>
  n.channels.filter((channel) => channel !== 'managers' || n.severity === 'critical');

beforeAll(async () => {
  harness = await startRuntimeHarness({ prefix: 'faults', scenario: faultScenario, clock });
  const motoEndpoint = process.env.AWS_ENDPOINT_URL ?? '';
  direct = new DynamoDBClient({ endpoint: motoEndpoint, region: 'us-east-1' });
  // The e2e rules and a per-record rule, so one burst decides a notification per call too.
  const configFile = join(process.env.TELEALERT_CONFIG_FILE ?? '', '..', 'faults.json');
  writeEmbeddedConfig(
    configFile,
    parseConfig(
      rulesFile(harness.simulator.url, TOKEN_PARAMETER) + PER_RECORD_RULE,
      'telealert.yaml',
    ),
  );
  process.env.TELEALERT_CONFIG_FILE = configFile;
  proxy = await startFaultProxy(motoEndpoint, plan.draw);
  process.env.AWS_ENDPOINT_URL = proxy.endpoint;
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  direct?.destroy();
  await proxy?.stop();
  await harness?.close();
});

describe('Deployed runtime on moto behind a fault-injecting proxy', () => {
  it('delivers every decided notification to every subscribed channel, with the same id, and nothing undecided', async () => {
    const warm = { live_calls: container('live_calls'), payments: container('payments') };
    const outcomes: string[] = [];
    const runOnce = async (source: SourceName) => {
      const kill =
        plan.on && random() < KILL_RATE
          ? { at: 1 + Math.floor(random() * 8), applied: random() < 0.5 }
          : undefined;
      const down = plan.on && random() < OUTAGE_RATE;
      const service = down ? (random() < 0.5 ? 'sns' : 'dynamodb') : undefined;
      plan.outage = service;
      const outcome = await (kill ? container(source, kill) : warm[source]).run();
      plan.outage = undefined;
      const killedAt = kill ? `@${kill.at}${kill.applied ? '+' : '-'}` : '';
      outcomes.push(`${source}:${outcome}${killedAt}${service ? `(${service} down)` : ''}`);
      // What a run committed but did not confirm (it threw, or died) is decided all the same.
      decide(await committedOwed(source));
    };

    // Faults on: live calls every 20 s over the bursts, payments every minute.
    const end = BURSTS * BURST_EVERY_MS;
    for (let offset = 0; offset <= end; offset += 20_000) {
      at(offset);
      await runOnce('live_calls');
      if (offset % MINUTE === 0) await runOnce('payments');
    }

    // Faults off: past the owed grace period, later runs deliver whatever is still owed.
    plan.on = false;
    for (const offset of [end + 3 * MINUTE, end + 3.5 * MINUTE, end + 4 * MINUTE]) {
      at(offset);
      await runOnce('live_calls');
      await runOnce('payments');
    }

    const faults = proxy.seen.flatMap(({ fault }) => (fault ? [fault.kind] : []));
    const context = `seed ${SEED} (TELEALERT_FAULT_SEED=${SEED} npm run test:e2e -- aws-faults); ${proxy.seen.length} requests, faults: ${tally(faults)}; runs: ${outcomes.join(' ')}`;

    // The run really was faulty: every kind of fault, and runs killed both ways.
    expect(new Set(faults), context).toEqual(
      new Set(['error', 'throttle', 'reset', 'delay', 'lost']),
    );
    expect(
      outcomes.some((o) => o.endsWith('+')),
      context,
    ).toBe(true);
    expect(
      outcomes.some((o) => o.endsWith('-')),
      context,
    ).toBe(true);
    expect(new Set([...decided.values()].map((n) => n.rule)), context).toEqual(
      new Set(['too-many-ringing', 'any-ringing', 'call-ringing', 'big-payment']),
    );

    const received = new Map<string, Record<string, unknown>[]>();
    for (const channel of CHANNELS) received.set(channel, await harness.stack.drain(channel));
    const violations: string[] = [];
    for (const [channel, bodies] of received) {
      for (const body of bodies) {
        const n = decided.get(String(body.id));
        if (n === undefined) violations.push(`${channel} got ${body.id}, never decided`);
        else if (!subscribed(n).includes(channel))
          violations.push(`${channel} got ${n.id}, not its`);
      }
    }
    for (const n of decided.values()) {
      for (const channel of subscribed(n)) {
        if (!received.get(channel)?.some((body) => body.id === n.id)) {
          violations.push(`${channel} never got ${n.id}`);
        }
      }
    }
    // A notification sent again is the very same one: same id, same content (only `channels`
    // narrows when some channels took it); no event goes out under two ids.
    const all = [...received.values()].flat();
    for (const [id, copies] of Object.entries(Object.groupBy(all, (body) => String(body.id)))) {
      const shapes = new Set(copies?.map(({ channels: _, ...rest }) => JSON.stringify(rest)));
      if (shapes.size > 1) violations.push(`${id} was sent with ${shapes.size} different contents`);
    }
    const event = (body: Record<string, unknown>) => `${body.key}|${body.status}|${body.at}`;
    for (const [key, copies] of Object.entries(Object.groupBy(all, event))) {
      const ids = new Set(copies?.map((body) => body.id));
      if (ids.size > 1) violations.push(`${key} was sent under ${ids.size} ids`);
    }
    expect(violations, context).toEqual([]);

    // Once faults stopped, nothing is left owed.
    expect(await committedOwed('live_calls'), context).toEqual([]);
    expect(await committedOwed('payments'), context).toEqual([]);
  });
});
