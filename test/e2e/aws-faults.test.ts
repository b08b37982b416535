import { join } from 'node:path';
import { type AttributeValue, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ATTR, decodeOwed, STATE_SK } from '../../functions/adapters/dynamodb-state-items';
import { createPollerHandler } from '../../functions/handler';
import type { PollerWiring } from '../../functions/wiring';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import type { Notification } from '../../shared/engine/types';
import type { SourceName } from '../../shared/types/config';
import { ManualClock } from '../../simulator/clock';
import { AGENTS } from '../../simulator/scenarios/roster';
import type { CallEvent, PaymentEvent, Scenario } from '../../simulator/scenarios/types';
import {
  type AwsFault,
  type FaultProxy,
  type ProxiedRequest,
  startFaultProxy,
} from './fault-proxy';
import {
  invoke,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
  TOKEN_PARAMETER,
} from './lambda';
import { DID_A, DID_B, MINUTE, rulesFile } from './scenario';

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

/** mulberry32: a small seeded generator, the same sequence for the same seed everywhere. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const random = seeded(SEED);
let faultsOn = true;
let faultsDrawn = 0;

/** The service that is down for the current run, if any. */
let outage: 'sns' | 'dynamodb' | undefined;

function drawFault(request: ProxiedRequest): AwsFault | undefined {
  if (!faultsOn || faultsDrawn >= MAX_FAULTS) return undefined;
  if (request.service === outage) {
    faultsDrawn += 1;
    const r = random();
    if (r < 0.6) return { kind: 'error', status: 503 };
    return r < 0.7 ? { kind: 'throttle' } : { kind: 'reset' };
  }
  if (random() >= FAULT_RATE) return undefined;
  faultsDrawn += 1;
  const r = random();
  if (r < 0.15) return { kind: 'error', status: random() < 0.5 ? 500 : 503 };
  if (r < 0.25) return { kind: 'throttle' };
  if (r < 0.4) return { kind: 'reset' };
  if (r < 0.6) return { kind: 'delay', ms: 20 + Math.floor(random() * 300) };
  return { kind: 'lost', answer: random() < 0.5 ? 'reset' : 500 };
}

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

/** Every notification a commit made owed: what the runtime decided to send. */
const decided = new Map<string, Notification>();
const decide = (notifications: readonly Notification[]) => {
  for (const n of notifications) if (!decided.has(n.id)) decided.set(n.id, n);
};

/** Where a killed run stops: at its `at`-th AWS call, before sending it or once it was applied. */
interface Kill {
  readonly at: number;
  readonly applied: boolean;
}

/**
 * A container of one source's poller. Its commits are recorded as decided when the store
 * accepts them. With `kill`, every AWS call from the `at`-th on never returns, as in a sandbox
 * the Lambda service killed, and `run` settles once nothing of it is in flight any more.
 */
function container(source: SourceName, kill?: Kill) {
  let calls = 0;
  let dead = false;
  const inFlight = new Set<Promise<unknown>>();
  let onKilled: () => void = () => {};
  const killed = new Promise<void>((resolve) => {
    onKilled = resolve;
  });
  let wiring: PollerWiring | undefined;
  const track = <T>(call: Promise<T>) => {
    const settled = call.catch(() => undefined);
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
    return call;
  };
  const handler = createPollerHandler(source, {
    logger: silentLogger(),
    wire: (built) => {
      wiring = built;
      const { dynamodb, sns, ssm } = built.runtime;
      for (const client of [dynamodb, sns, ssm]) {
        client.middlewareStack.add(
          (next) => async (args) => {
            if (dead) return new Promise<never>(() => {});
            calls += 1;
            if (kill !== undefined && calls === kill.at) {
              dead = true;
              if (kill.applied) await track(next(args)).catch(() => undefined);
              onKilled();
              return new Promise<never>(() => {});
            }
            return track(next(args));
          },
          { step: 'initialize', name: 'killSandbox' },
        );
      }
      const store = built.store;
      return {
        ...built,
        store: {
          load: (s) => store.load(s),
          markSent: (s, ids) => store.markSent(s, ids),
          narrowOwed: (s, id, channels) => store.narrowOwed(s, id, channels),
          commit: async (s, revision, next, owed) => {
            const written = await store.commit(s, revision, next, owed);
            decide(owed);
            return written;
          },
        },
      };
    },
  });
  return {
    /** `'killed'` when the sandbox died mid-way; `'failed'` when the run threw. */
    async run(): Promise<'done' | 'failed' | 'killed'> {
      const outcome = await Promise.race([
        invoke(handler).then(
          () => 'done' as const,
          () => 'failed' as const,
        ),
        killed.then(() => 'killed' as const),
      ]);
      if (outcome === 'killed') {
        while (inFlight.size > 0) await Promise.all([...inFlight]);
        const runtime = (wiring as PollerWiring | undefined)?.runtime;
        for (const client of runtime ? [runtime.dynamodb, runtime.sns, runtime.ssm] : []) {
          client.destroy();
        }
      }
      return outcome;
    },
  };
}

/**
 * The notifications the table holds as owed and committed (an owed item with a commit id the
 * state item recorded): decided, not yet known delivered. Read straight from moto.
 */
async function committedOwed(source: SourceName): Promise<Notification[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await direct.send(
      new QueryCommand({
        TableName: harness.stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: source } },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  const state = items.find((item) => item.sk?.S === STATE_SK);
  const committed = new Set(state?.[ATTR.committed]?.SS ?? []);
  return items
    .filter((item) => item !== state)
    .map(decodeOwed)
    .filter((owed) => owed.commits.some((id) => committed.has(id)))
    .map((owed) => owed.notification);
}

/** The channels whose subscriptions take `n`: managers' filter policy takes critical only. */
const subscribed = (n: Notification) =>
  n.channels.filter((channel) => channel !== 'managers' || n.severity === 'critical');

const BURST_EVERY_MS = 90_000;
const BURSTS = 10;

/**
 * Busy enough that most runs decide something: every 90 s four calls ring together for a
 * minute on one of two DIDs (each call fires and resolves its own alert, the burst its DID's
 * and the any-ringing one); every 2 min a payment of 150000.00 arrives (one alert each).
 */
const faultScenario: Scenario = {
  name: 'aws-faults',
  description: 'ringing bursts every 90 s and a large payment every 2 min',
  windowMs: 60 * MINUTE,
  maxCallMs: 2 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    const calls: CallEvent[] = [];
    for (let burst = 0; burst < BURSTS; burst += 1) {
      for (let i = 0; i < 4; i += 1) {
        const serial = burst * 4 + i + 1;
        calls.push({
          serial,
          startMs: burst * BURST_EVERY_MS,
          ringMs: MINUTE,
          direction: 1,
          did: burst % 2 === 0 ? DID_A : DID_B,
          caller: `+91900000${String(serial).padStart(4, '0')}`,
          agents: AGENTS.slice(serial % AGENTS.length, (serial % AGENTS.length) + 1),
        });
      }
    }
    const payments: PaymentEvent[] = Array.from({ length: 9 }, (_, i) => ({
      serial: i + 1,
      atMs: 10_000 + i * 2 * MINUTE,
      paidPaise: 150_000_00,
      gateway: 'Razorpay',
    }));
    return { calls, payments };
  },
};

const PER_RECORD_RULE = `
  - name: call-ringing
    source: live_calls
    where: { state: Ringing }
    severity: info
    notify: [oncall, finance]
`;

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
  proxy = await startFaultProxy(motoEndpoint, drawFault);
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
        faultsOn && random() < KILL_RATE
          ? { at: 1 + Math.floor(random() * 8), applied: random() < 0.5 }
          : undefined;
      const down = faultsOn && random() < OUTAGE_RATE;
      const service = down ? (random() < 0.5 ? 'sns' : 'dynamodb') : undefined;
      outage = service;
      const outcome = await (kill ? container(source, kill) : warm[source]).run();
      outage = undefined;
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
    faultsOn = false;
    for (const offset of [end + 3 * MINUTE, end + 3.5 * MINUTE, end + 4 * MINUTE]) {
      at(offset);
      await runOnce('live_calls');
      await runOnce('payments');
    }

    const faults = proxy.seen.flatMap(({ fault }) => (fault ? [fault.kind] : []));
    const tally = (list: readonly string[]) =>
      Object.entries(Object.groupBy(list, (item) => item))
        .map(([kind, items]) => `${kind} ${items?.length}`)
        .join(', ');
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
