import type { Notification } from '../shared/engine/types';
import { fitsOneSegment } from '../shared/messages/gsm7';
import { MESSAGE_BODY_LIMIT, publishedBytes } from '../shared/notifier/bodies';
import { decide } from '../shared/notifier/decide';
import type { Decision } from '../shared/notifier/types';
import { replayMessages } from '../shared/timeline/messages';
import { parseTimeline, replayTimeline } from '../shared/timeline/parse';
import type { Config } from '../shared/types/config';
import { generatePayments } from '../simulator/generate';
import { liveCallsAt, paymentsAt, type ScenarioRun } from '../simulator/scenario-run';
import { SCENARIOS } from '../simulator/scenarios/index';
import { median, round, timeMs } from './stats';

const MINUTE = 60_000;
/** A Saturday evening in India: the busy hours, finance out of office. */
const START_MS = Date.UTC(2026, 10, 21, 12, 30, 0);
const HOURS = 2;

/** What one channel was sent over a timeline. */
export interface ChannelFigure {
  readonly channel: string;
  readonly events: number;
  readonly messages: number;
  /** Of `messages`, the handoffs of the channel's rotation (the incoming person's alone). */
  readonly handoffs: number;
  /** Every event of the channel is in some message. */
  readonly everyEventTold: boolean;
  readonly largestBytes: number;
  /** Every message within SNS's size, one SMS segment and the subject's limit. */
  readonly withinLimits: boolean;
}

function channelFigures(config: Config, text: string): ChannelFigure[] {
  const entries = parseTimeline(text, 'bench', config.timezone);
  const events = replayTimeline(config, entries);
  const { outbound } = replayMessages(config, entries);
  return Object.keys(config.channels).map((channel) => {
    const mine = events.filter((event) => event.channels.includes(channel));
    const sent = outbound.filter((item) => item.message.channel === channel);
    const told = new Set(sent.flatMap((item) => item.delivers));
    const sizes = sent.map((item) => publishedBytes(item.message));
    return {
      channel,
      events: mine.length,
      messages: sent.length,
      handoffs: sent.filter((item) => item.message.kind === 'handoff').length,
      everyEventTold: mine.every((event) => told.has(event.id)),
      largestBytes: Math.max(0, ...sizes),
      withinLimits: sent.every(
        ({ message }) =>
          publishedBytes(message) <= MESSAGE_BODY_LIMIT &&
          (message.sms === null || fitsOneSegment(message.sms)) &&
          message.subject.length < 100,
      ),
    };
  });
}

/**
 * The busy-evening scenario as the pollers would see it for two hours: live calls at every
 * sample of `sources.live_calls`, payments every `sources.payments.every` over the lookback.
 */
function busyEveningTimeline(config: Config): string {
  const run: ScenarioRun = {
    scenario: SCENARIOS['busy-evening'],
    startMs: START_MS,
    seed: 1,
    zone: config.timezone,
  };
  const lines: { atMs: number; line: string }[] = [];
  const endMs = START_MS + HOURS * 60 * MINUTE;
  const live = config.sources.live_calls;
  const liveStep = live.everyMs / live.samples;
  for (let at = START_MS; at < endMs; at += liveStep) {
    const records = liveCallsAt(run, at).map((call) => call.record);
    lines.push({
      atMs: at,
      line: JSON.stringify({ at: new Date(at).toISOString(), source: 'live_calls', records }),
    });
  }
  const payments = config.sources.payments;
  for (let at = START_MS; at < endMs; at += payments.everyMs) {
    const since = at - payments.lookbackMs;
    const records = paymentsAt(run, at, since)
      .filter((payment) => payment.createdMs >= since)
      .map((payment) => payment.record);
    lines.push({
      atMs: at,
      line: JSON.stringify({ at: new Date(at).toISOString(), source: 'payments', records }),
    });
  }
  return lines
    .sort((a, b) => a.atMs - b.atMs)
    .map((entry) => entry.line)
    .join('\n');
}

/** Messages against events per channel over two hours of the busy evening. */
export function messagesPerIncident(config: Config): ChannelFigure[] {
  return channelFigures(config, busyEveningTimeline(config));
}

/** `config` with every channel on the contract's default grouping (by rule, 0s, 5m). */
export function withDefaultGrouping(config: Config): Config {
  const channels = Object.fromEntries(
    Object.entries(config.channels).map(([name, channel]) => [
      name,
      { ...channel, group: { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE } },
    ]),
  );
  return { ...config, channels };
}

/**
 * A first deployment on an account with `stuck` payments pending for hours: one payments poll
 * sees them all at once.
 */
export function firstDeployment(config: Config, stuck: number): ChannelFigure[] {
  const nowMs = START_MS;
  // The generator leaves about one payment in ten pending: ten times as many give `stuck`.
  const records = generatePayments(stuck * 10, 7, nowMs - 2 * 60 * MINUTE, config.timezone);
  const line = JSON.stringify({ at: new Date(nowMs).toISOString(), source: 'payments', records });
  return channelFigures(config, line);
}

/** One notifier step on a flood: what went in, what came out, and how long the step took. */
export interface NotifierFloodFigure {
  readonly step: string;
  readonly events: number;
  readonly messages: number;
  /** Events of the step some message of the step delivers (each once). */
  readonly told: number;
  /** Median of the runs, the step alone (`decide`; its events are made before). */
  readonly ms: number;
  readonly runs: number;
}

/** The firing event the shipped stuck-payment rule sends for payment `id`, to `channel`. */
function stuckPaymentEvent(id: number, atMs: number, channel: string): Notification {
  const key = `payment-stuck-pending{id=${id}}`;
  const story = `payment ${id} of 1500.00 not settled after 45m`;
  return {
    id: `${key}|firing|${atMs}`,
    at: new Date(atMs).toISOString(),
    source: 'payments',
    rule: 'payment-stuck-pending',
    status: 'firing',
    severity: 'warning',
    channels: [channel],
    key,
    labels: { id: String(id) },
    sms: `FIRING payment-stuck-pending: ${story}`,
    subject: `[WARNING] FIRING payment-stuck-pending: ${story}`,
    text: `${story}, via Razorpay, created 2026-11-21 17:15:00 IST`,
  };
}

/** `runs` timed steps after one untimed (warm-up) step, told by the last. */
function timedStep(
  step: string,
  events: readonly Notification[],
  runs: number,
  once: () => Decision,
): NotifierFloodFigure {
  let last = once();
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    samples.push(
      timeMs(() => {
        last = once();
      }),
    );
  }
  const delivered = new Set(last.messages.flatMap((outbound) => outbound.delivers));
  return {
    step,
    events: events.length,
    messages: last.messages.length,
    told: events.filter((event) => delivered.has(event.id)).length,
    ms: round(median(samples), 1),
    runs,
  };
}

/**
 * The notifier step on the largest inputs it meets: `backlog` events of one group in one step
 * (the notifier was down while the pollers went on), and `night` events deferred outside the
 * finance channel's office hours (Mon-Fri 09:00-18:00, as the shipped rules file suggests),
 * then their morning digest. Printed, no budget: the unit tests check that each event is told
 * once; this says how long a step takes.
 */
export function measureNotifierFlood(
  config: Config,
  runs: number,
  backlog = 100_000,
  night = 50_000,
): NotifierFloodFigure[] {
  const finance = config.channels.finance;
  if (config.channels.oncall === undefined || finance === undefined) {
    throw new Error('the notifier flood needs the shipped oncall and finance channels');
  }
  const office: Config = {
    ...config,
    channels: {
      ...config.channels,
      finance: {
        ...finance,
        active: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinutes: 540, toMinutes: 1080 },
      },
    },
  };
  const count = (n: number) => n.toLocaleString('en');
  const outage = Array.from({ length: backlog }, (_, i) =>
    stuckPaymentEvent(i, START_MS, 'oncall'),
  );
  // Saturday 21:00 IST: outside finance's office hours until Monday 09:00.
  const nightMs = START_MS + 3 * 60 * MINUTE;
  const deferredEvents = Array.from({ length: night }, (_, i) =>
    stuckPaymentEvent(i, nightMs, 'finance'),
  );
  const deferred = decide(office, undefined, deferredEvents, nightMs);
  // The steps due before the morning (a rotation's handoffs on oncall) go first: the timed
  // step is the one that sends finance its digest.
  let overnight = deferred.state;
  let morningMs = deferred.nextDueAtMs;
  for (;;) {
    if (morningMs === undefined) throw new Error('the deferred events are due at no time');
    const step = decide(office, overnight, [], morningMs);
    if (step.messages.some((outbound) => outbound.message.channel === 'finance')) break;
    overnight = step.state;
    morningMs = step.nextDueAtMs;
  }
  const dueMs = morningMs;
  return [
    timedStep(`one step, ${count(backlog)} events of one group (oncall)`, outage, runs, () =>
      decide(office, undefined, outage, START_MS),
    ),
    timedStep(
      `one step, ${count(night)} events deferred outside office hours (finance)`,
      deferredEvents,
      runs,
      () => decide(office, undefined, deferredEvents, nightMs),
    ),
    timedStep(
      `the morning digest of those ${count(night)} events (finance)`,
      deferredEvents,
      runs,
      () => decide(office, overnight, [], dueMs),
    ),
  ];
}
