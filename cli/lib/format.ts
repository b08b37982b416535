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
 * One message as people get it: time, channel and kind, then what the phone shows and the
 * email's subject, e.g.
 * `2026-11-21 10:05:00 IST  oncall  alerts (3)` / `  SMS   3 alerts: ...` / `  email [WARNING] ...`.
 */
export function prettyMessage(message: Message, zone: string, colour: boolean): string {
  const time = formatInZone(Date.parse(message.at), zone);
  const paint = (text: string) =>
    colour
      ? `${COLOURS[message.alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved']}${text}${COLOURS.reset}`
      : text;
  return [
    `${time}  ${message.channel}  ${message.kind} (${message.alerts.length} alert${message.alerts.length === 1 ? '' : 's'})`,
    `  SMS    ${message.sms === null ? '(none: email only)' : paint(message.sms)}`,
    `  email  ${message.subject}`,
  ].join('\n');
}

/** The local `MessagePublisher`: prints each message, as JSON Lines or for people. */
export class PrintingMessagePublisher implements MessagePublisher {
  sent = 0;
  sms = 0;
  digests = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: PrintStyle,
  ) {}

  async publish(messages: readonly Message[]): Promise<{ delivered: readonly string[] }> {
    for (const message of messages) {
      this.write(
        `${this.style.json ? messageJson(message) : `${prettyMessage(message, this.style.zone, this.style.colour)}\n`}\n`,
      );
      this.sent += 1;
      if (message.sms !== null) this.sms += 1;
      if (message.kind === 'digest') this.digests += 1;
    }
    return { delivered: messages.map((message) => message.id) };
  }
}
