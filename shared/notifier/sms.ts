import { SEVERITIES } from '../config/types';
import { fitsOneSegment } from '../messages/gsm7';
import { fitSms, oneLine } from '../messages/sms';
import type { MessageAlert } from './types';

/** More facts than this never fit one segment: the renderer looks no further. */
const MAX_RENDERED_FACTS = 40;

/** Most important first: firing before resolved, then the higher severity, then as told. */
export function byImportance(alerts: readonly MessageAlert[]): MessageAlert[] {
  const rank = (alert: MessageAlert) =>
    (alert.status === 'firing' ? 0 : 10) + (SEVERITIES.length - SEVERITIES.indexOf(alert.severity));
  return alerts
    .map((alert, index) => ({ alert, index }))
    .sort((a, b) => rank(a.alert) - rank(b.alert) || a.index - b.index)
    .map(({ alert }) => alert);
}

/** `ringing-spike +918000000001 CRITICAL`, `payment-stuck-pending 4411 resolved`. */
export function alertFact(alert: MessageAlert): string {
  const labels = Object.values(alert.labels).join(' ');
  const state = alert.status === 'resolved' ? 'resolved' : alert.severity.toUpperCase();
  return oneLine([alert.rule, labels, state].filter((part) => part !== '').join(' '));
}

/**
 * What an SMS says, as an ordered list of facts, most important first: the headline (`3
 * alerts`), then one fact per alert (`ringing-spike +918000000001 CRITICAL`). A plain SMS is
 * `renderSms(facts)`; a carrier template (India's DLT) fills its variables from the same list.
 */
export function smsFacts(headline: string, alerts: readonly MessageAlert[]): string[] {
  return [headline, ...byImportance(alerts).map(alertFact)];
}

/**
 * One SMS segment from facts: `headline: fact; fact; +k more`, as many facts as fit (160
 * GSM-7 characters, or 70 when one is outside GSM-7), the count of the rest at the end.
 */
export function renderSms(facts: readonly string[]): string {
  const [headline = '', ...items] = facts;
  if (items.length === 0) return fitSms(headline);
  // A single fact too long for the segment is cut, rather than counted as "+1 more".
  if (items.length === 1) return fitSms(`${headline}: ${items[0]}`);
  const shown = Math.min(items.length, MAX_RENDERED_FACTS);
  for (let count = shown; count >= 1; count -= 1) {
    const rest = items.length - count;
    const text = oneLine(
      `${headline}: ${items.slice(0, count).join('; ')}${rest > 0 ? `; +${rest} more` : ''}`,
    );
    if (fitsOneSegment(text)) return text;
  }
  return fitSms(`${headline}: +${items.length} more`);
}
