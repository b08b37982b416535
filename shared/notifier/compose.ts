import { createHash } from 'node:crypto';
import { clip, toAscii } from '../messages/ascii';
import { onOneLine } from '../messages/display';
import { fillDltTemplate } from '../messages/dlt';
import { formatApiDateTime, formatInZone } from '../time/zone';
import type { ChannelConfig, Config } from '../types/config';
import type { AckFacts } from './ack-call';
import { ackHeadline, ackIntro, ackSmsFacts } from './ack-text';
import { highestSeverity, MESSAGE_BODY_LIMIT, publishedBytes } from './bodies';
import { describeActive } from './describe';
import { FOLD_PER_ALERT, keptOf, lineKeys, weightOf } from './fold';
import { formatLimit } from './follow';
import { renderSms, smsFacts } from './sms';
import type { HeldEvent, Message, MessageAlert, MessageKind } from './types';

/** Email subjects stay under 100 characters (SNS). */
const SUBJECT_MAX = 99;
/** Up to this many alerts, a message's text is each event's full story; past it, a line each. */
export const RICH_ALERTS = 3;

/**
 * Why a message goes: grouped events, a digest of what active hours deferred, or of capped SMS,
 * an escalation of alerts nobody acknowledged, or the confirmation of an acknowledgement.
 */
export type MessageReason =
  | 'alerts'
  | 'deferred'
  | 'capped'
  | 'escalation'
  | 'ack'
  | 'handoff'
  | 'handover';

export interface ComposeInput {
  readonly config: Config;
  readonly channel: ChannelConfig;
  readonly reason: MessageReason;
  /** The group's key (`alerts`), or the digest's reason. */
  readonly groupKey: string;
  readonly events: readonly HeldEvent[];
  readonly nowMs: number;
  /** The message carries an SMS body (the channel has numbers and wants this severity). */
  readonly withSms: boolean;
  /**
   * `ack`: who acknowledged (`ACK by +919800000001`); `escalation`: the wait it escalates after;
   * `handover`: the channel gone from the rules file.
   */
  readonly title?: string;
  /** `deferred`: sent before the window opens, the state being unable to keep it longer. */
  readonly early?: boolean;
  /** `ack`: the call's confirmation, beyond the alerts it acknowledged (`ack-text.ts`). */
  readonly ack?: AckFacts;
}

/** One alert as told: its events merged (a firing and its resolution told once). */
interface AlertLine {
  readonly alert: MessageAlert;
  readonly last: HeldEvent;
  /** Its events in the list (those a flood folded into them are delivered with them). */
  readonly ids: readonly string[];
  /**
   * What the message id hashes of it: its event ids; for an alert of more than
   * `FOLD_PER_ALERT` events, the ids of those a fold keeps and the count of all, so the id
   * is the same whether or not the list was folded.
   */
  readonly named: readonly string[];
}

/** A message and the events it tells. */
export interface ComposedPart {
  readonly message: Message;
  readonly ids: readonly string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The events of one message, one line per alert and firing (`lineKeys`) in the order first
 * seen: the latest event's status and time, and for an alert that fired and resolved while
 * held, its firing time too.
 */
export function alertLines(events: readonly HeldEvent[]): AlertLine[] {
  const byLine = new Map<string, HeldEvent[]>();
  const lines = lineKeys(events);
  events.forEach((event, index) => {
    const line = lines[index] as string;
    const list = byLine.get(line);
    if (list) list.push(event);
    else byLine.set(line, [event]);
  });
  return [...byLine.values()].map((list) => {
    const last = list[list.length - 1] as HeldEvent;
    const fired = list.find((event) => event.status === 'firing');
    // The firing's own time, which a repeat held with the resolution does not have.
    const firedAtMs = last.firedAt ?? fired?.firedAt ?? fired?.at;
    const alert: MessageAlert = {
      rule: last.rule,
      key: last.key,
      status: last.status,
      // One alert has one severity; the highest, should a rule's have changed meanwhile.
      severity: highestSeverity({ alerts: list }),
      labels: last.labels,
      value: last.value,
      at: iso(last.at),
      ...(last.status === 'resolved' &&
      (fired !== undefined || last.unheard === true) &&
      firedAtMs !== undefined
        ? { firedAt: iso(firedAtMs) }
        : {}),
    };
    const ids = list.map((event) => event.id);
    const weight = list.reduce((sum, event) => sum + weightOf(event), 0);
    const named =
      weight > FOLD_PER_ALERT
        ? [...keptOf(list).map((index) => ids[index] as string), `+${weight}`]
        : ids;
    return { alert, last, ids, named };
  });
}

function counted(lines: readonly AlertLine[]): string {
  const resolved = lines.filter((line) => line.alert.status === 'resolved').length;
  const total = lines.length;
  const noun = total === 1 ? 'alert' : 'alerts';
  if (resolved === 0) return `${total} ${noun}`;
  if (resolved === total) return `${total} resolved`;
  return `${total} ${noun} (${resolved} resolved)`;
}

/** Every line is a firing told again because an acknowledgement by call ran out. */
function allLapsed(lines: readonly AlertLine[]): boolean {
  return lines.length > 0 && lines.every((line) => line.last.ackLapsed !== undefined);
}

function headline(input: ComposeInput, lines: readonly AlertLine[]): string {
  const { reason } = input;
  if (reason === 'alerts' && allLapsed(lines))
    return `ACK timed out: ${counted(lines)} still firing`;
  if (reason === 'deferred') return `Digest: ${counted(lines)}`;
  if (reason === 'capped') return `SMS held by cap: ${counted(lines)}`;
  if (reason === 'handover') {
    return `Channel ${input.title ?? '?'} no longer exists: ${counted(lines)} it kept`;
  }
  if (reason === 'escalation') return `ESCALATION: ${counted(lines)} not acknowledged`;
  if (reason === 'ack') {
    if (input.ack !== undefined) return ackHeadline(input.ack, lines, input.config.timezone);
    return `${input.title ?? 'ACK'}: ${lines.length === 0 ? 'no firing alerts' : counted(lines)}`;
  }
  if (reason === 'handoff') {
    return `${input.title ?? 'On call'}; ${lines.length === 0 ? 'no firing alerts' : `${counted(lines)} firing`}`;
  }
  return counted(lines);
}

/** The limit of followed alerts a line's firing found reached; undefined when it is followed. */
function unfollowedPast(line: AlertLine): number | undefined {
  return line.alert.status === 'firing' ? line.last.unfollowed : undefined;
}

const NOT_FOLLOWED = '  (not followed)';

/** One line saying which alerts of the message no escalation or acknowledgement will follow. */
function notFollowed(lines: readonly AlertLine[]): string[] {
  let count = 0;
  let limit = 0;
  for (const line of lines) {
    const past = unfollowedPast(line);
    if (past === undefined) continue;
    count += 1;
    limit = Math.max(limit, past);
  }
  if (count === 0) return [];
  const which =
    count === lines.length
      ? lines.length === 1
        ? 'Not followed'
        : 'These alerts are not followed'
      : `${count} of these alerts (marked "not followed") ${count === 1 ? 'is' : 'are'} not followed`;
  return [
    `${which} for escalation or acknowledgement: more than ${formatLimit(limit)} alerts that repeat or escalate are firing.`,
  ];
}

/** `  id=4411  2026-11-21 10:00:05  value 6  (fired 2026-11-21 09:58:00)`: one alert, short. */
function compactLine(line: AlertLine, zone: string): string {
  const { alert } = line;
  const labels = Object.entries(alert.labels)
    .map(([name, value]) => `${name}=${onOneLine(value)}`)
    .join(',');
  const value = alert.value === null ? '' : `  value ${alert.value}`;
  const fired = alert.firedAt
    ? `  (fired ${formatApiDateTime(Date.parse(alert.firedAt), zone)})`
    : '';
  const unfollowed = unfollowedPast(line) === undefined ? '' : NOT_FOLLOWED;
  return `  ${labels || onOneLine(alert.key)}  ${formatApiDateTime(line.last.at, zone)}${value}${fired}${unfollowed}`;
}

/** Alerts a line each, under a heading per status and rule (`FIRING payment-stuck-pending (warning):`). */
function compactList(lines: readonly AlertLine[], zone: string): string[] {
  const sections = new Map<string, AlertLine[]>();
  for (const line of lines) {
    const { status, rule, severity } = line.alert;
    const heading = `${status === 'firing' ? 'FIRING' : 'RESOLVED'} ${rule} (${severity})`;
    const section = sections.get(heading);
    if (section) section.push(line);
    else sections.set(heading, [line]);
  }
  const out: string[] = [];
  for (const [heading, section] of sections) {
    // One at a time: a digest's section can hold more lines than push() takes arguments.
    out.push(`${heading}, ${section.length}:`);
    for (const line of section) out.push(compactLine(line, zone));
  }
  return out;
}

function intro(input: ComposeInput, lines: readonly AlertLine[]): string[] {
  const { channel, config } = input;
  if (input.reason === 'deferred') {
    return [
      `These came outside the active hours of channel ${channel.name} (${describeActive(channel.active)}, ${config.timezone}) and were kept for this digest.`,
      ...(input.early
        ? [
            'It is sent before the active hours start: more alerts were deferred than telealert can keep until then.',
          ]
        : []),
      'Each line is the latest of its alert: FIRING is still firing as far as telealert told it.',
    ];
  }
  if (input.reason === 'capped') {
    return [
      `Channel ${channel.name} sends at most ${channel.smsPerHour} SMS an hour. These alerts were emailed when they happened; their SMS was held back and this digest tells them by SMS.`,
    ];
  }
  if (input.reason === 'handover') {
    const gone = input.title ?? '?';
    return [
      `Channel ${gone} is no longer in the rules file (a deploy removed or renamed it). telealert was keeping these alerts for it (held by grouping, deferred outside its active hours, or emailed with their SMS held by its cap) and has no channel ${gone} to tell them to any more, so they go to channel ${channel.name}, one of health.notify, now.`,
      'Each line is the latest of its alert: FIRING is still firing as far as telealert told it. Its rules now notify the channels the new file names.',
    ];
  }
  if (input.reason === 'escalation') {
    const how =
      config.ack === undefined
        ? 'telealert ack KEY'
        : `telealert ack KEY, or a call to ${config.ack.did} from a number of a channel they went to`;
    return [
      `These alerts are firing and nobody acknowledged them ${input.title ?? ''} after they fired, so they escalate to channel ${channel.name}. Acknowledging stops further steps: ${how}.`,
    ];
  }
  if (input.reason === 'handoff') {
    return [
      `You carry the pager of channel ${channel.name} now: its SMS and email reach you until the next handoff.`,
      input.events.length === 0
        ? 'Nothing that repeats or escalates is firing on it.'
        : 'These alerts are firing on it now (the last time each was told):',
    ];
  }
  if (input.reason === 'alerts' && allLapsed(lines)) {
    const by = [...new Set(lines.map((line) => line.last.ackLapsed))].join(', ');
    return [
      `The acknowledgement by call (from ${by}) ran out after ack.timeout and these alerts still fire: they repeat and escalate again. telealert ack KEY acknowledges until an alert resolves.`,
    ];
  }
  if (input.reason === 'ack') {
    if (input.ack !== undefined) return ackIntro(input.ack, input.events.length, config.timezone);
    return [
      input.events.length === 0
        ? 'The call was seen; channel had no firing alert that repeats or escalates.'
        : 'These alerts are acknowledged: no repeats and no escalation until each resolves (a later firing is new).',
    ];
  }
  return [];
}

function messageText(
  input: ComposeInput,
  lines: readonly AlertLine[],
  title: string,
  rich: boolean,
): string {
  const zone = input.config.timezone;
  const out = [`${title}, channel ${input.channel.name}, sent ${formatInZone(input.nowMs, zone)}`];
  out.push(...intro(input, lines), ...notFollowed(lines), '');
  if (rich) {
    // Several stories: each unfollowed one marked, as the compact list marks its lines.
    const story = (line: AlertLine) =>
      line.last.text === undefined
        ? compactLine(line, zone)
        : `${line.last.text}${lines.length > 1 && unfollowedPast(line) !== undefined ? `\n${NOT_FOLLOWED.trim()}` : ''}`;
    out.push(lines.map(story).join('\n\n---\n\n'));
  } else {
    for (const line of compactList(lines, zone)) out.push(line);
    out.push('', `Times are in ${zone}.`);
  }
  return out.join('\n');
}

function subjectOf(
  title: string,
  lines: readonly AlertLine[],
  reason: MessageReason,
  parts: number,
): string {
  const only = lines.length === 1 && parts === 1 ? lines[0] : undefined;
  if (only !== undefined && reason === 'alerts' && only.last.ackLapsed === undefined) {
    return only.last.subject;
  }
  const severity = highestSeverity({ alerts: lines.map((line) => line.alert) }).toUpperCase();
  const rules = [...new Set(lines.map((line) => line.alert.rule))];
  const named = rules.slice(0, 3).join(', ') + (rules.length > 3 ? ` +${rules.length - 3}` : '');
  const told = named === '' ? title : `${title}: ${named}`;
  return clip(toAscii(`[${severity}] ${told}`), SUBJECT_MAX);
}

function smsOf(input: ComposeInput, lines: readonly AlertLine[]): string {
  const only = lines.length === 1 ? lines[0] : undefined;
  if (only !== undefined && input.reason === 'alerts' && only.last.ackLapsed === undefined) {
    return renderSms([only.last.sms]);
  }
  const alerts = lines.map((line) => line.alert);
  const facts =
    input.reason === 'ack' && input.ack !== undefined
      ? ackSmsFacts(headline(input, lines), alerts, input.ack)
      : smsFacts(headline(input, lines), alerts);
  const dlt = input.config.sms?.dlt;
  // India: the registered DLT template is the message, its slots filled from the same facts.
  return dlt === undefined ? renderSms(facts) : fillDltTemplate(dlt.template, facts);
}

function kindOf(reason: MessageReason): MessageKind {
  if (reason === 'alerts' || reason === 'escalation' || reason === 'ack' || reason === 'handoff') {
    return reason;
  }
  return 'digest';
}

/** Same channel, kind, group and events: same id, whenever and however often it is decided. */
export function messageId(
  channel: string,
  kind: MessageKind,
  groupKey: string,
  ids: readonly string[],
): string {
  const hash = createHash('sha256');
  hash.update([channel, kind, groupKey, ...ids].join('\n'));
  return hash.digest('hex').slice(0, 32);
}

function build(
  input: ComposeInput,
  lines: readonly AlertLine[],
  all: readonly AlertLine[],
  part: number,
  parts: number,
): ComposedPart {
  const ids = lines.flatMap((line) => line.ids);
  const suffix = parts > 1 ? ` (part ${part}/${parts})` : '';
  const title = `${headline(input, all)}${suffix}`;
  const rich = parts === 1 && lines.length <= RICH_ALERTS && lines.every((line) => line.last.text);
  const kind = kindOf(input.reason);
  // Parts of one message page once: the first carries the SMS, about all of them.
  const sms = input.withSms && part === 1 ? smsOf(input, all) : null;
  const message: Message = {
    at: iso(input.nowMs),
    channel: input.channel.name,
    kind,
    alerts: lines.map((line) => line.alert),
    sms,
    subject: subjectOf(title, lines, input.reason, parts),
    text: messageText(input, lines, title, rich),
    id: messageId(
      input.channel.name,
      kind,
      input.groupKey,
      lines.flatMap((line) => line.named),
    ),
  };
  return { message, ids };
}

/** Bytes one alert adds to a published message, a little over (JSON within JSON escapes twice). */
function lineCost(line: AlertLine, zone: string): number {
  const text = compactLine(line, zone);
  return (
    Buffer.byteLength(JSON.stringify(JSON.stringify(line.alert)), 'utf8') +
    Buffer.byteLength(JSON.stringify(JSON.stringify(text)), 'utf8') +
    Buffer.byteLength(JSON.stringify(text), 'utf8') +
    8
  );
}

function chunk(lines: readonly AlertLine[], budget: number, zone: string): AlertLine[][] {
  const chunks: AlertLine[][] = [];
  let current: AlertLine[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = lineCost(line, zone);
    if (current.length > 0 && used + cost > budget) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(line);
    used += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * The message(s) telling `events` to one channel (contract section 6). One message, unless it
 * would pass SNS's 256 KiB: then as few parts as fit, each saying `part i/n`, the first
 * carrying the SMS. Pure: time comes from the input.
 */
export function compose(input: ComposeInput): ComposedPart[] {
  const lines = alertLines(input.events);
  const whole = build(input, lines, lines, 1, 1);
  if (publishedBytes(whole.message) <= MESSAGE_BODY_LIMIT) return [whole];
  const zone = input.config.timezone;
  // Room for the intro, subject and SMS of each part, then fewer lines a part until all fit.
  for (let budget = MESSAGE_BODY_LIMIT - 8_000; budget > 0; budget = Math.floor(budget * 0.9)) {
    const chunks = chunk(lines, budget, zone);
    const built = chunks.map((part, index) => build(input, part, lines, index + 1, chunks.length));
    if (built.every((part) => publishedBytes(part.message) <= MESSAGE_BODY_LIMIT)) return built;
  }
  return lines.map((line, index) => build(input, [line], lines, index + 1, lines.length));
}
