import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { ATTR, STATE_SK } from '../../functions/adapters/dynamodb-state-items';
import { createPollerHandler } from '../../functions/handler';
import type { Notification } from '../../shared/engine/types';
import type { SourceName } from '../../shared/types/config';
import { AGENTS } from '../../simulator/scenarios/roster';
import type { CallEvent, PaymentEvent, Scenario } from '../../simulator/scenarios/types';
import type { AwsFault, ProxiedRequest } from './fault-proxy';
import { invoke, silentLogger } from './lambda';
import { DID_A, DID_B, MINUTE } from './scenario';

/*
 * The pieces of the seeded fault-injection run (`notifier-faults.test.ts`: the pollers commit,
 * the notifier sends messages): the seeded generator, the faults drawn for the proxy, sandboxes
 * the Lambda service kills, and the busy scenario they run.
 */

/** mulberry32: a small seeded generator, the same sequence for the same seed everywhere. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface FaultPlanOptions {
  /** Share of requests that meet a fault while faults are on. */
  readonly rate: number;
  /** At most this many faults in the whole run, so a bad seed cannot starve every run. */
  readonly max: number;
}

/**
 * What the proxy does to each request (`draw`), from the seeded generator: while `on`, a share
 * of requests meet a fault of any kind, and every request to the service of the `outage` (set
 * for the length of one run) is refused or reset.
 */
export class FaultPlan {
  on = true;
  /** The service (the request's signing name) that is down for the current run, if any. */
  outage: string | undefined;
  #drawn = 0;
  readonly #random: () => number;
  readonly #options: FaultPlanOptions;

  constructor(random: () => number, options: FaultPlanOptions) {
    this.#random = random;
    this.#options = options;
  }

  readonly draw = (request: ProxiedRequest): AwsFault | undefined => {
    const random = this.#random;
    if (!this.on || this.#drawn >= this.#options.max) return undefined;
    if (request.service === this.outage) {
      this.#drawn += 1;
      const r = random();
      if (r < 0.6) return { kind: 'error', status: 503 };
      return r < 0.7 ? { kind: 'throttle' } : { kind: 'reset' };
    }
    if (random() >= this.#options.rate) return undefined;
    this.#drawn += 1;
    const r = random();
    if (r < 0.15) return { kind: 'error', status: random() < 0.5 ? 500 : 503 };
    if (r < 0.25) return { kind: 'throttle' };
    if (r < 0.4) return { kind: 'reset' };
    if (r < 0.6) return { kind: 'delay', ms: 20 + Math.floor(random() * 300) };
    return { kind: 'lost', answer: random() < 0.5 ? 'reset' : 500 };
  };
}

/** Where a killed run stops: at its `at`-th AWS call, before sending it or once it was applied. */
export interface Kill {
  readonly at: number;
  readonly applied: boolean;
}

/** One AWS call of a sandbox: its number (from 1), its command (`PublishCommand`, ...), its input. */
export interface SandboxCall {
  readonly index: number;
  readonly command: string;
  readonly input: unknown;
}

/**
 * Asked at each AWS call of a sandbox, as it is made: whether the sandbox dies there, before
 * sending it or once it was applied.
 */
export type KillRule = (call: SandboxCall) => { readonly applied: boolean } | undefined;

/** Where a sandbox died. */
export interface KilledAt {
  readonly index: number;
  readonly command: string;
  readonly applied: boolean;
}

/** How a run in a sandbox ended: `'killed'` when the sandbox died mid-way, `'failed'` when it threw. */
export type RunOutcome = 'done' | 'failed' | 'killed';

type AwsClient = DynamoDBClient | SNSClient | SSMClient;

/**
 * A Lambda sandbox's AWS clients. With `kill`, every AWS call from the one it names on never
 * returns, as in a sandbox the Lambda service killed; `run` then settles once nothing of it is
 * in flight any more, and destroys the clients.
 */
export class Sandbox {
  readonly #kill: KillRule | undefined;
  readonly #clients: AwsClient[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #killed: Promise<void>;
  #onKilled: () => void = () => {};
  #calls = 0;
  #dead = false;
  #killedAt: KilledAt | undefined;

  constructor(kill?: Kill | KillRule) {
    this.#kill =
      kill === undefined || typeof kill === 'function'
        ? kill
        : (call) => (call.index === kill.at ? { applied: kill.applied } : undefined);
    this.#killed = new Promise<void>((resolve) => {
      this.#onKilled = resolve;
    });
  }

  /** The call the sandbox died at, once it did. */
  get killedAt(): KilledAt | undefined {
    return this.#killedAt;
  }

  #track<T>(call: Promise<T>): Promise<T> {
    const settled = call.catch(() => undefined);
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return call;
  }

  /** Puts the sandbox between `clients` and AWS (a handler's `wire` option calls it). */
  arm(clients: readonly AwsClient[]): void {
    for (const client of clients) {
      this.#clients.push(client);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (this.#dead) return new Promise<never>(() => {});
          this.#calls += 1;
          const call = {
            index: this.#calls,
            command: context.commandName ?? '',
            input: args.input,
          };
          const kill = this.#kill?.(call);
          if (kill !== undefined) {
            this.#dead = true;
            this.#killedAt = { index: call.index, command: call.command, applied: kill.applied };
            if (kill.applied) await this.#track(next(args)).catch(() => undefined);
            this.#onKilled();
            return new Promise<never>(() => {});
          }
          return this.#track(next(args));
        },
        { step: 'initialize', name: 'killSandbox' },
      );
    }
  }

  /** Runs one invocation in the sandbox. */
  async run(invocation: () => Promise<unknown>): Promise<RunOutcome> {
    const outcome = await Promise.race([
      invocation().then(
        () => 'done' as const,
        () => 'failed' as const,
      ),
      this.#killed.then(() => 'killed' as const),
    ]);
    if (outcome === 'killed') {
      while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
      for (const client of this.#clients) client.destroy();
    }
    return outcome;
  }
}

/**
 * A container of one source's poller in `sandbox`. `onCommit` hears of each commit the store
 * accepted, with the events it made owed.
 */
export function pollerContainer(
  source: SourceName,
  sandbox: Sandbox,
  onCommit: (owed: readonly Notification[]) => void,
): { run(): Promise<RunOutcome> } {
  const handler = createPollerHandler(source, {
    logger: silentLogger(),
    wire: (built) => {
      const { dynamodb, ssm } = built.runtime;
      sandbox.arm([dynamodb, ssm]);
      const store = built.store;
      return {
        ...built,
        store: {
          load: (s) => store.load(s),
          markSent: (s, ids) => store.markSent(s, ids),
          narrowOwed: (s, id, channels) => store.narrowOwed(s, id, channels),
          commit: async (s, revision, next, owed) => {
            const written = await store.commit(s, revision, next, owed);
            onCommit(owed);
            return written;
          },
        },
      };
    },
  });
  return { run: () => sandbox.run(() => invoke(handler)) };
}

/**
 * The items of a partition of the state table (a source's, or `notifier`) that are owed and
 * committed: an owed item with a commit id the state item recorded. Read straight from moto,
 * by the test's own reading of the layout.
 */
export async function committedItems(
  client: DynamoDBClient,
  table: string,
  partition: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: partition } },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  const state = items.find((item) => item.sk?.S === STATE_SK);
  const committed = new Set(state?.[ATTR.committed]?.SS ?? []);
  return items.filter(
    (item) => item !== state && (item[ATTR.commits]?.SS ?? []).some((id) => committed.has(id)),
  );
}

/** `error 12, delay 30`: how many of each. */
export function tally(list: readonly string[]): string {
  return Object.entries(Object.groupBy(list, (item) => item))
    .map(([kind, items]) => `${kind} ${items?.length}`)
    .join(', ');
}

export const BURST_EVERY_MS = 90_000;
export const BURSTS = 10;

/**
 * Busy enough that most runs decide something: every 90 s four calls ring together for a
 * minute on one of two DIDs (each call fires and resolves its own alert, the burst its DID's
 * and the any-ringing one); every 2 min a payment of 150000.00 arrives (one alert each).
 */
export const faultScenario: Scenario = {
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

/** Added to the e2e rules, so one burst decides an event per call too. */
export const PER_RECORD_RULE = `
  - name: call-ringing
    source: live_calls
    where: { state: Ringing }
    severity: info
    notify: [oncall, finance]
`;
