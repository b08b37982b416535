import { notificationJson } from '../../shared/engine/json';
import type { Notification } from '../../shared/engine/types';
import { messageJson } from '../../shared/notifier/json';
import type { Message } from '../../shared/notifier/types';
import type { MessagePublisher } from '../../shared/ports/notifier';
import type { Publisher, PublishOutcome } from '../../shared/ports/types';
import { formatInZone } from '../../shared/time/zone';

const COLOURS = { firing: '\u001b[31m', resolved: '\u001b[32m', reset: '\u001b[0m' } as const;

/** One notification for people: the time in the zone, then its SMS text (status, rule, facts). */
export function prettyLine(notification: Notification, zone: string, colour: boolean): string {
  const time = formatInZone(Date.parse(notification.at), zone);
  const line = `${notification.sms} -> ${notification.channels.join(', ')}`;
  return `${time}  ${colour ? `${COLOURS[notification.status]}${line}${COLOURS.reset}` : line}`;
}

/** How the local publishers print: JSON Lines, or for people in a zone, with or without colour. */
export interface PrintStyle {
  readonly json: boolean;
  readonly zone: string;
  readonly colour: boolean;
}

/**
 * The local `Publisher`: prints each notification, as JSON Lines or for people. An untold
 * resolution (`resolved: false`) is taken and not printed: it is no notification (section 3).
 */
export class PrintingPublisher implements Publisher {
  sent = 0;
  firing = 0;
  resolved = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: PrintStyle,
  ) {}

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    for (const notification of notifications) {
      if (notification.untold === true) continue;
      this.write(
        `${this.style.json ? notificationJson(notification) : prettyLine(notification, this.style.zone, this.style.colour)}\n`,
      );
      this.sent += 1;
      if (notification.status === 'firing') this.firing += 1;
      else this.resolved += 1;
    }
    return { delivered: notifications.map((notification) => notification.id), partial: [] };
  }
}

/**
 * The head of a message's lines: time, channel and kind with its count, and for a rotation's
 * channel the person on call it reaches; a handoff says who takes the pager from whom
 * (`previous`, the channel's person before it, when known).
 */
function messageHead(message: Message, zone: string, previous: string | undefined): string {
  const time = formatInZone(Date.parse(message.at), zone);
  const count = message.alerts.length;
  if (message.kind === 'handoff') {
    const firing =
      count === 0 ? 'nothing firing' : `${count} alert${count === 1 ? '' : 's'} firing`;
    const who =
      previous === undefined || previous === message.oncall
        ? `${message.oncall} is on call`
        : `${message.oncall} takes over from ${previous}`;
    return `${time}  ${message.channel}  handoff: ${who} (${firing})`;
  }
  const head = `${time}  ${message.channel}  ${message.kind} (${count} alert${count === 1 ? '' : 's'})`;
  return message.oncall === undefined ? head : `${head}  on call: ${message.oncall}`;
}

/**
 * One message as people get it: time, channel and kind (and the person on call it reaches),
 * then what the phone shows and the email's subject, e.g.
 * `2026-11-21 10:05:00 IST  oncall  alerts (3 alerts)  on call: asha` / `  SMS   3 alerts: ...` /
 * `  email [WARNING] ...`; a handoff's head is `... oncall  handoff: ravi takes over from asha
 * (1 alert firing)`.
 */
export function prettyMessage(
  message: Message,
  zone: string,
  colour: boolean,
  previous?: string,
): string {
  const paint = (text: string) =>
    colour
      ? `${COLOURS[message.alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved']}${text}${COLOURS.reset}`
      : text;
  return [
    messageHead(message, zone, previous),
    `  SMS    ${message.sms === null ? '(none: email only)' : paint(message.sms)}`,
    `  email  ${message.subject}`,
  ].join('\n');
}

/** The local `MessagePublisher`: prints each message, as JSON Lines or for people. */
export class PrintingMessagePublisher implements MessagePublisher {
  sent = 0;
  sms = 0;
  digests = 0;
  handoffs = 0;
  /** By channel, the person on call its last message reached (a handoff names the outgoing one). */
  readonly #onCall = new Map<string, string>();

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: PrintStyle,
  ) {}

  async publish(messages: readonly Message[]): Promise<{ delivered: readonly string[] }> {
    for (const message of messages) {
      const previous = this.#onCall.get(message.channel);
      this.write(
        `${this.style.json ? messageJson(message) : `${prettyMessage(message, this.style.zone, this.style.colour, previous)}\n`}\n`,
      );
      if (message.oncall !== undefined) this.#onCall.set(message.channel, message.oncall);
      this.sent += 1;
      if (message.sms !== null) this.sms += 1;
      if (message.kind === 'digest') this.digests += 1;
      if (message.kind === 'handoff') this.handoffs += 1;
    }
    return { delivered: messages.map((message) => message.id) };
  }
}
