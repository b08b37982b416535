import type { Notification } from '../engine/types';
import type { ChannelConfig } from '../types/config';
import type { HeldEvent } from './types';

/** The value of one `group.by` name for an event: `rule`, `severity`, `source` or a label. */
function groupValue(event: HeldEvent, name: string): string {
  if (name === 'rule') return event.rule;
  if (name === 'severity') return event.severity;
  if (name === 'source') return event.source;
  return event.labels[name] ?? '';
}

/** The group an event joins on a channel: its `group.by` values, and their key. */
export function groupOf(
  channel: ChannelConfig,
  event: HeldEvent,
): { readonly key: string; readonly labels: Record<string, string> } {
  const labels: Record<string, string> = {};
  for (const name of channel.group.by) labels[name] = groupValue(event, name);
  return { key: JSON.stringify(channel.group.by.map((name) => labels[name])), labels };
}

/** What the notifier keeps of an engine notification while it waits. */
export function heldEvent(notification: Notification): HeldEvent {
  return {
    id: notification.id,
    at: Date.parse(notification.at),
    source: notification.source,
    rule: notification.rule,
    key: notification.key,
    status: notification.status,
    severity: notification.severity,
    labels: notification.labels,
    value: notification.value ?? null,
    ...(notification.firedAt === undefined ? {} : { firedAt: Date.parse(notification.firedAt) }),
    ...(notification.untold === true ? { untold: true as const } : {}),
    sms: notification.sms,
    subject: notification.subject,
    text: notification.text,
  };
}

/**
 * Held events without the full texts once more alerts are held than a message shows whole:
 * the message will list them a line each, and the state stays small.
 */
export function trimTexts(held: readonly HeldEvent[], richAlerts: number): readonly HeldEvent[] {
  if (new Set(held.map((event) => event.key)).size <= richAlerts) return held;
  if (held.every((event) => event.text === undefined)) return held;
  return held.map(({ text: _text, ...rest }) => rest);
}
