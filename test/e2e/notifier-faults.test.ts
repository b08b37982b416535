import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeOwed } from '../../functions/adapters/dynamodb-state-items';
import type { NotifierEvent } from '../../functions/events';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { Notification } from '../../shared/engine/types';
import type { Message } from '../../shared/notifier/types';
import type { SourceName } from '../../shared/types/config';
import { ManualClock } from '../../simulator/clock';
import {
  BURST_EVERY_MS,
  BURSTS,
  committedItems,
  FaultPlan,
  faultScenario,
  type KillRule,
  PER_RECORD_RULE,
  pollerContainer,
  type RunOutcome,
  Sandbox,
  type SandboxCall,
  seeded,
  tally,
} from './fault-injection';
import { type AwsFault, type FaultProxy, startFaultProxy } from './fault-proxy';
import { lambdaContext, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { MINUTE, rulesFile } from './scenario';

/*
 * Seeded, bounded fault injection on the deployed delivery path (the stack's): the pollers
 * only commit their alert events; the notifier, invoked by the
 * table's stream after each poller run and by its minute schedule, turns them into messages,
 * publishes them and marks the events sent. Faults hit the requests of both; sandboxes of both
 * are killed mid-way. A notifier invocation from the stream that fails or dies loses its
 * records (the test does not redeliver them): the minute schedule must catch up. The seed fixes
 * the faults drawn and the runs killed; which of several parallel requests (owed writes, the
 * overlapping stream and schedule invocations) meets one still follows their arrival order.
 * Another seed:
 * TELEALERT_FAULT_SEED=n npm run test:e2e -- notifier-faults
 */
const SEED = Number(process.env.TELEALERT_FAULT_SEED ?? 20_261_125);
/** Share of requests that meet a fault while faults are on. */
const FAULT_RATE = 0.2;
/** At most this many faults in the whole run, so a bad seed cannot starve every run. */
const MAX_FAULTS = 500;
/**
 * Share of invocations killed mid-way, as the Lambda service kills a sandbox, at a call chosen
 * up front: one of the first (the token, the reads) or a write of the commit.
 */
const KILL_RATE = 0.2;
/**
 * Share of the invocations that write owed items (a poller's events, the notifier's messages)
 * killed at the first: the commit's crash before its state is written. Drawn as that write is
 * made, so it falls on invocations that commit something (most do not).
 */
const OWED_KILL_RATE = 0.3;
/**
 * Share of the rounds that publish killed at their first publish: after the commit that made
 * the messages owed (the outbox's case). Drawn as that publish is made (only a few rounds
 * publish, hence the high rate).
 */
const PUBLISH_KILL_RATE = 0.5;
/** Share of faulty runs during which DynamoDB refuses every request. */
const OUTAGE_RATE = 0.1;
/**
 * At the first publish of notifier invocations, the share for which SNS refuses that message
 * every time it is tried in them (so it stays owed), as an outage would; one message only, as
 * each refused message costs the publisher's retries in real time. High for the reason above.
 */
const SNS_REFUSES_RATE = 0.5;
const CHANNELS = ['oncall', 'managers', 'finance'] as const;

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;
let proxy: FaultProxy;
let direct: DynamoDBClient;

/*
 * Two generators from the seed: one for the faults the proxy draws on every request, one for
 * the runs (kills, outages, refused publishes), which so does not shift with the number of
 * requests a run made.
 */
const plan = new FaultPlan(seeded(SEED), { rate: FAULT_RATE, max: MAX_FAULTS });
const random = seeded(SEED ^ 0x5eed);
/** Whose requests the proxy sees now: pollers and the notifier never run at once. */
let running: 'poller' | 'notifier' = 'poller';
/** Publish requests of the current notifier invocations (SNS may refuse the first's message). */
let roundPublishes = 0;
/** The publish SNS refuses in the current notifier invocations, by its body. */
let refused: string | undefined;
/** Each fault drawn, by whose request met it. */
const faults: { readonly by: 'poller' | 'notifier'; readonly kind: string }[] = [];

function at(offsetMs: number) {
  clock.set(T0 + offsetMs);
  vi.setSystemTime(T0 + offsetMs);
}

/** Every alert event a poller committed, by id: what the notifier owes the channels. */
const committed = new Map<string, Notification>();
const record = (events: readonly Notification[]) => {
  for (const event of events) if (!committed.has(event.id)) committed.set(event.id, event);
};

/** The events a source's partition holds committed and not yet marked sent. Read from moto. */
async function committedOwed(source: SourceName): Promise<Notification[]> {
  const items = await committedItems(direct, harness.stack.tableName, source);
  return items.map((item) => decodeOwed(item).notification);
}

/** The messages the notifier's partition holds committed and not yet published. */
async function owedMessages(): Promise<string[]> {
  const items = await committedItems(direct, harness.stack.tableName, 'notifier');
  return items.map((item) => item.sk?.S ?? '');
}

/** The channels whose subscriptions take `event`: managers' filter policy takes critical only. */
const subscribed = (event: Notification) =>
  event.channels.filter((channel) => channel !== 'managers' || event.severity === 'critical');

type NotifierInvocation = (event: NotifierEvent, context: Context) => Promise<unknown>;
type PollerRun = () => Promise<RunOutcome>;
type NotifierRun = (event: NotifierEvent, context: Context) => Promise<RunOutcome>;

/**
 * A sandbox that serves invocations until it is killed (then the Lambda service starts a new
 * one); `kill`, set for each invocation, says whether it dies at a call.
 */
interface Container<Run> {
  kill: KillRule | undefined;
  readonly sandbox: Sandbox;
  readonly run: Run;
}

function pollerSandbox(source: SourceName): Container<PollerRun> {
  const sandbox = new Sandbox((call) => container.kill?.(call));
  const container: Container<PollerRun> = {
    kill: undefined,
    sandbox,
    run: pollerContainer(source, sandbox, record).run,
  };
  return container;
}

function notifierSandbox(): Container<NotifierRun> {
  const sandbox = new Sandbox((call) => container.kill?.(call));
  const handler = createNotifierHandler({
    logger: silentLogger(),
    wire: (built) => {
      const { dynamodb, sns } = built.runtime;
      sandbox.arm([dynamodb, sns]);
      return built;
    },
  }) as unknown as NotifierInvocation;
  const container: Container<NotifierRun> = {
    kill: undefined,
    sandbox,
    run: (event, context) => sandbox.run(() => handler(event, context)),
  };
  return container;
}

/** Dies at the `n`-th call that `matches`. */
function killAtNth(matches: (call: SandboxCall) => boolean, n: number, applied: boolean): KillRule {
  let count = 0;
  return (call) => {
    if (!matches(call)) return undefined;
    count += 1;
    return count === n ? { applied } : undefined;
  };
}

/** At the first call that `matches`, dies there with probability `rate`, drawn then. */
function killAtFirst(matches: (call: SandboxCall) => boolean, rate: number): KillRule {
  let seen = false;
  return (call) => {
    if (seen || !matches(call)) return undefined;
    seen = true;
    return random() < rate ? { applied: random() < 0.5 } : undefined;
  };
}

const anyCall = () => true;
const isWrite = (call: SandboxCall) => call.command === 'UpdateItemCommand';
/** A write of an owed item: its sort key begins with `prefix` (`owed#`, `message#`). */
const isOwedWrite = (prefix: string) => (call: SandboxCall) =>
  isWrite(call) &&
  ((call.input as { Key?: { sk?: { S?: string } } }).Key?.sk?.S ?? '').startsWith(prefix);

/**
 * Where the next invocation dies, if it does: chosen up front, at one of its first calls (the
 * token, the reads) or at one of the writes of its commit (owed items, then the state); or,
 * drawn as it is made, at its first owed write and, for the notifier, at its first publish.
 */
function killRule(who: 'poller' | 'notifier'): KillRule | undefined {
  if (!plan.on) return undefined;
  if (random() < KILL_RATE) {
    const applied = random() < 0.5;
    return random() < 0.5
      ? killAtNth(anyCall, 1 + Math.floor(random() * 3), applied)
      : killAtNth(isWrite, 1 + Math.floor(random() * 2), applied);
  }
  const owed = killAtFirst(isOwedWrite(who === 'poller' ? 'owed#' : 'message#'), OWED_KILL_RATE);
  if (who === 'poller') return owed;
  const publish = killAtFirst((call) => call.command === 'PublishCommand', PUBLISH_KILL_RATE);
  return (call) => owed(call) ?? publish(call);
}

/** `live_calls:killed@UpdateItem#4+(dynamodb down)`: how a run ended, where it died. */
function describeRun(
  what: string,
  outcome: RunOutcome,
  died: Sandbox['killedAt'],
  outage?: string,
) {
  const where = died
    ? `@${died.command.replace(/Command$/, '')}#${died.index}${died.applied ? '+' : '-'}`
    : '';
  return `${what}:${outcome}${where}${outage ? `(${outage} down)` : ''}`;
}

describe('Deployed delivery on moto behind a fault-injecting proxy: pollers commit, the notifier sends', () => {
  beforeAll(async () => {
    harness = await startRuntimeHarness({
      prefix: 'nfaults',
      scenario: faultScenario,
      clock,
      // The e2e rules and a per-record rule, so one burst decides an event per call too; on
      // call groups send every 2 min (the others every 5, the default), so more rounds publish.
      rules: (baseUrl, tokenParameter) => {
        const rules = rulesFile(baseUrl, tokenParameter);
        const oncall = 'oncall: { sms: ["+12025550100"] }';
        if (!rules.includes(oncall)) throw new Error(`the e2e rules no longer have ${oncall}`);
        return (
          rules.replace(oncall, 'oncall: { sms: ["+12025550100"], group: { interval: 2m } }') +
          PER_RECORD_RULE
        );
      },
    });
    const motoEndpoint = process.env.AWS_ENDPOINT_URL ?? '';
    direct = new DynamoDBClient({ endpoint: motoEndpoint, region: 'us-east-1' });
    // The handlers' clients go through the proxy; the test's own (the stream it reads for the
    // mapping, the queues it drains, `direct`) were made on moto before.
    proxy = await startFaultProxy(motoEndpoint, (request) => {
      if (running === 'notifier' && plan.on && request.operation === 'Publish') {
        roundPublishes += 1;
        if (roundPublishes === 1 && random() < SNS_REFUSES_RATE) refused = request.body;
      }
      const fault: AwsFault | undefined =
        refused !== undefined && request.body === refused
          ? { kind: 'error', status: 503 }
          : plan.draw(request);
      if (fault) faults.push({ by: running, kind: fault.kind });
      return fault;
    });
    process.env.AWS_ENDPOINT_URL = proxy.endpoint;
    vi.useFakeTimers({ toFake: ['Date'] });
  });

  afterAll(async () => {
    vi.useRealTimers();
    direct?.destroy();
    await proxy?.stop();
    await harness?.close();
  });

  it('tells every committed event to every subscribed channel, re-sends with the same id and content, tells nothing uncommitted, and leaves nothing owed', async () => {
    const outcomes: string[] = [];
    const pollers = {
      live_calls: pollerSandbox('live_calls'),
      payments: pollerSandbox('payments'),
    };
    // Lambda runs overlapping invocations in separate sandboxes: one serves the stream's, one
    // the schedule's.
    const notifiers = { stream: notifierSandbox(), schedule: notifierSandbox() };
    /** Rounds after which the notifier's partition held messages owed: the outbox at work. */
    let leftOwed = 0;

    const poll = async (source: SourceName) => {
      running = 'poller';
      const container = pollers[source];
      container.kill = killRule('poller');
      plan.outage = plan.on && random() < OUTAGE_RATE ? 'dynamodb' : undefined;
      const outcome = await container.run();
      outcomes.push(describeRun(source, outcome, container.sandbox.killedAt, plan.outage));
      plan.outage = undefined;
      if (container.sandbox.killedAt) pollers[source] = pollerSandbox(source);
      // What a run committed but did not confirm (its answer was lost, or it died) is committed
      // all the same; no notifier ran since, so nothing of it is marked sent yet.
      record(await committedOwed(source));
    };

    /** One notifier invocation; the caller ends the outages it drew (`plan.outage`). */
    const notify = async (trigger: 'stream' | 'schedule') => {
      const container = notifiers[trigger];
      container.kill = killRule('notifier');
      if (plan.on && random() < OUTAGE_RATE) plan.outage = 'dynamodb';
      const ran =
        trigger === 'stream'
          ? await harness.streamToNotifier(container.run)
          : [await container.run({ id: `schedule-${Date.now()}` }, lambdaContext())];
      for (const outcome of ran as RunOutcome[]) {
        outcomes.push(
          describeRun(`notifier(${trigger})`, outcome, container.sandbox.killedAt, plan.outage),
        );
      }
      // The Lambda service starts a new sandbox for the next invocation.
      if (container.sandbox.killedAt) notifiers[trigger] = notifierSandbox();
    };
    /** Notifier invocations at once: the stream's and the schedule's may overlap. */
    const notifyAll = async (...triggers: ('stream' | 'schedule')[]) => {
      running = 'notifier';
      roundPublishes = 0;
      await Promise.all(triggers.map(notify));
      plan.outage = undefined;
      refused = undefined;
      if ((await owedMessages()).length > 0) leftOwed += 1;
    };

    // Faults on: live calls every 20 s over the bursts, payments and the notifier's schedule
    // every minute; each poller run's commit invokes the notifier through the stream.
    const end = BURSTS * BURST_EVERY_MS;
    for (let offset = 0; offset <= end; offset += 20_000) {
      at(offset);
      await poll('live_calls');
      await notifyAll('stream');
      if (offset % MINUTE === 0) {
        await poll('payments');
        await notifyAll('stream', 'schedule');
      }
    }

    // Faults off: every minute, past the grace period of owed messages (2 min) and the groups'
    // interval (5 min), so what a crashed round left and what groups held goes out.
    plan.on = false;
    for (let offset = end + MINUTE; offset <= end + 8 * MINUTE; offset += MINUTE) {
      at(offset);
      await poll('live_calls');
      await notifyAll('stream');
      await poll('payments');
      await notifyAll('stream', 'schedule');
    }

    const seen = (by: 'poller' | 'notifier') =>
      new Set(faults.filter((fault) => fault.by === by).map((fault) => fault.kind));
    const context = `seed ${SEED} (TELEALERT_FAULT_SEED=${SEED} npm run test:e2e -- notifier-faults); ${leftOwed} rounds left messages owed; ${proxy.seen.length} requests, faults: ${tally(faults.map((f) => `${f.by} ${f.kind}`))}; runs: ${outcomes.join(' ')}`;

    // The run really was faulty: every kind of fault on the requests of both, and sandboxes of
    // both killed before a call and once it was applied.
    const kinds = new Set(['error', 'throttle', 'reset', 'delay', 'lost']);
    expect(seen('poller'), context).toEqual(kinds);
    expect(seen('notifier'), context).toEqual(kinds);
    for (const who of ['live_calls|payments', 'notifier']) {
      for (const how of ['+', '-']) {
        const killed = new RegExp(`^(${who})[^:]*:killed@\\w+#\\d+\\${how}`);
        expect(
          outcomes.some((o) => killed.test(o)),
          `${context}\nno ${who} run killed ${how === '+' ? 'after' : 'before'} a call`,
        ).toBe(true);
      }
    }
    expect(leftOwed, `${context}\nno notifier round left a message owed`).toBeGreaterThan(0);
    expect(new Set([...committed.values()].map((event) => event.rule)), context).toEqual(
      new Set(['too-many-ringing', 'any-ringing', 'call-ringing', 'big-payment']),
    );

    const received = new Map<string, Message[]>();
    for (const channel of CHANNELS) {
      received.set(channel, (await harness.stack.drain(channel)) as unknown as Message[]);
    }
    const all = [...received.values()].flat();
    const violations: string[] = [];

    for (const [channel, messages] of received) {
      for (const message of messages.filter((m) => m.channel !== channel)) {
        violations.push(`${channel}'s queue got ${message.id}, a message to ${message.channel}`);
      }
    }
    // A message sent again is the very same one: same id, same content.
    for (const [id, copies] of Object.entries(Object.groupBy(all, (message) => message.id))) {
      const shapes = new Set(copies?.map((message) => JSON.stringify(message)));
      if (shapes.size > 1) violations.push(`${id} was sent with ${shapes.size} different contents`);
    }
    const once = [...new Map(all.map((message) => [message.id, message])).values()];

    // Nothing a poller did not commit is told, and nothing to a channel it is not for: each
    // line of a message is a committed event of its alert (its status and time), and a line of
    // an alert that fired and resolved while held names a committed firing as `firedAt`.
    const events = [...committed.values()];
    const byKey = Object.groupBy(events, (event) => event.key);
    const find = (key: string, status: string, when: string) =>
      byKey[key]?.find(
        (event) => event.status === status && Date.parse(event.at) === Date.parse(when),
      );
    for (const message of once) {
      for (const line of message.alerts) {
        const event = find(line.key, line.status, line.at);
        if (event === undefined) {
          violations.push(
            `${message.channel} was told ${line.key} ${line.status} at ${line.at}, never committed`,
          );
        } else if (!subscribed(event).includes(message.channel)) {
          violations.push(`${message.channel} was told ${event.id}, not its`);
        }
        if (line.firedAt !== undefined && !find(line.key, 'firing', line.firedAt)) {
          violations.push(
            `${message.channel} was told ${line.key} fired at ${line.firedAt}, never committed`,
          );
        }
      }
    }

    // No event is told twice as news: on a channel, an event is the line of one `alerts`
    // message (a digest may recap by SMS what the cap held back, already emailed).
    const told = new Map<string, Set<string>>();
    for (const message of once.filter((m) => m.kind === 'alerts')) {
      for (const line of message.alerts) {
        const event = `${message.channel} ${line.key} ${line.status} ${Date.parse(line.at)}`;
        told.set(event, (told.get(event) ?? new Set()).add(message.id));
      }
    }
    for (const [event, ids] of told) {
      if (ids.size > 1) violations.push(`${event} was told by ${ids.size} messages`);
    }

    // Every committed event reaches every channel subscribed to it: as a line of its own (its
    // status and time), as the firing of a line that fired and resolved while held, or, when
    // later events of its alert were held with it, under the line of its alert's latest event
    // (a message tells each alert once, as its latest event).
    let exact = 0;
    let superseded = 0;
    for (const event of events) {
      const when = Date.parse(event.at);
      for (const channel of subscribed(event)) {
        const lines = once
          .filter((message) => message.channel === channel)
          .flatMap((message) => message.alerts.filter((line) => line.key === event.key));
        const own = lines.some(
          (line) =>
            (line.status === event.status && Date.parse(line.at) === when) ||
            (event.status === 'firing' &&
              line.firedAt !== undefined &&
              Date.parse(line.firedAt) === when),
        );
        if (own) exact += 1;
        else if (lines.some((line) => Date.parse(line.at) > when)) superseded += 1;
        else
          violations.push(
            `${channel} never got ${event.id} (${event.key} ${event.status} at ${event.at})`,
          );
      }
    }
    const summary = `${context}\n${committed.size} events committed; ${once.length} messages (${tally(once.map((m) => m.kind))}; ${all.length} received); told as their own line ${exact}, under a later line ${superseded}`;
    expect(violations, summary).toEqual([]);

    // Once faults stopped, nothing is left owed: no event in the sources, no message in the
    // notifier's partition.
    expect(await committedOwed('live_calls'), summary).toEqual([]);
    expect(await committedOwed('payments'), summary).toEqual([]);
    expect(await owedMessages(), summary).toEqual([]);
  });
});
