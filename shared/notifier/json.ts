import type { Message } from './types';

/**
 * A message as one JSON object (contract section 6), keys in the contract's order: the line
 * `replay --messages` prints and the `default` body on SNS.
 */
export function messageJson(message: Message): string {
  const { at, channel, kind, alerts, sms, subject, text, id, oncall, to } = message;
  return JSON.stringify({
    at,
    channel,
    kind,
    ...(oncall === undefined ? {} : { oncall }),
    ...(to === undefined ? {} : { to }),
    alerts: alerts.map(({ rule, key, status, severity, labels, value, at: when, firedAt }) => ({
      rule,
      key,
      status,
      severity,
      labels,
      value,
      at: when,
      ...(firedAt === undefined ? {} : { firedAt }),
    })),
    sms,
    subject,
    text,
    id,
  });
}
