import type { Notification } from './types';

/**
 * The notification as one JSON object (contract section 4): the line `replay`, `poll` and the
 * demo print, and the `default`/`sqs` body on SNS. Keys in the contract's order, then the
 * two fields the contract leaves open: `source` (what filter policies see) and `id`
 * (deterministic, for de-duplicating an at-least-once redelivery).
 */
export function notificationJson(notification: Notification): string {
  const { at, rule, status, severity, channels, key, labels, value, sms, subject, text } =
    notification;
  return JSON.stringify({
    at,
    rule,
    status,
    severity,
    channels,
    key,
    labels,
    ...(value === undefined ? {} : { value }),
    sms,
    subject,
    text,
    source: notification.source,
    id: notification.id,
  });
}
