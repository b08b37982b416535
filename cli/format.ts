import { notificationJson } from '../shared/engine/json';
import type { Notification } from '../shared/engine/types';
import type { Publisher, PublishOutcome } from '../shared/ports/types';
import { formatInZone } from '../shared/time/zone';

const COLOURS = { firing: '\u001b[31m', resolved: '\u001b[32m', reset: '\u001b[0m' } as const;

/** One notification for people: the time in the zone, then its SMS text (status, rule, facts). */
export function prettyLine(notification: Notification, zone: string, colour: boolean): string {
  const time = formatInZone(Date.parse(notification.at), zone);
  const line = `${notification.sms} -> ${notification.channels.join(', ')}`;
  return `${time}  ${colour ? `${COLOURS[notification.status]}${line}${COLOURS.reset}` : line}`;
}

/** The local `Publisher`: prints each notification, as JSON Lines or for people. */
export class PrintingPublisher implements Publisher {
  sent = 0;
  firing = 0;
  resolved = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: {
      readonly json: boolean;
      readonly zone: string;
      readonly colour: boolean;
    },
  ) {}

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    for (const notification of notifications) {
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
