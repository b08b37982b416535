import { fitsOneSegment } from '../shared/messages/gsm7';
import { MESSAGE_BODY_LIMIT, publishedBytes } from '../shared/notifier/bodies';
import { replayMessages } from '../shared/timeline/messages';
import { parseTimeline, replayTimeline } from '../shared/timeline/parse';
import type { Config } from '../shared/types/config';
import { generatePayments } from '../simulator/generate';
import { liveCallsAt, paymentsAt, type ScenarioRun } from '../simulator/scenario-run';
import { SCENARIOS } from '../simulator/scenarios/index';

const MINUTE = 60_000;
/** A Saturday evening in India: the busy hours, finance out of office. */
const START_MS = Date.UTC(2026, 10, 21, 12, 30, 0);
const HOURS = 2;

/** What one channel was sent over a timeline. */
export interface ChannelFigure {
  readonly channel: string;
  readonly events: number;
  readonly messages: number;
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
export function busyEveningTimeline(config: Config): string {
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
