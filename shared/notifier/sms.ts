import { fitsOneSegment } from '../messages/gsm7';
import { fitSms, oneLine } from '../messages/sms';
import { SEVERITIES } from '../types/config';
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

/** A fact naming several alerts of one rule longer than this counts them instead. */
const NAMED_FACT_MAX = 60;

/**
 * One fact per rule and state, in order of importance: `ringing-spike +918000000001
 * CRITICAL`, `ringing-too-long c1, c2 WARNING`, or counted when naming them all is too long
 * for a phone (`9 call-ringing-too-long WARNING`).
 */
export function ruleFacts(alerts: readonly MessageAlert[]): string[] {
  const byRule = new Map<string, MessageAlert[]>();
  for (const alert of byImportance(alerts)) {
    const state = alert.status === 'resolved' ? 'resolved' : alert.severity;
    const key = `${alert.rule}\u0000${state}`;
    const list = byRule.get(key);
    if (list) list.push(alert);
    else byRule.set(key, [alert]);
  }
  return [...byRule.values()].map((list) => {
    const [first] = list as [MessageAlert, ...MessageAlert[]];
    if (list.length === 1) return alertFact(first);
    const state = first.status === 'resolved' ? 'resolved' : first.severity.toUpperCase();
    const named = oneLine(
      `${first.rule} ${list.map((alert) => Object.values(alert.labels).join(' ')).join(', ')} ${state}`,
    );
    return named.length <= NAMED_FACT_MAX ? named : `${list.length} ${first.rule} ${state}`;
  });
}

/**
 * What an SMS says, as an ordered list of facts, most important first: the headline (`3
 * alerts`), then a fact per rule and state (`ringing-spike +918000000001 CRITICAL`,
 * `9 call-ringing-too-long WARNING`). A plain SMS is `renderSms(facts)`; a carrier template
 * (India's DLT) fills its variables from the same list.
 */
export function smsFacts(headline: string, alerts: readonly MessageAlert[]): string[] {
  return [headline, ...ruleFacts(alerts)];
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
