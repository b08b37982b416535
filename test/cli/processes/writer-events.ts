import type { Notification } from '../../../shared/engine/types';

/** 2026-11-21 10:00 IST: both writers' clock. */
export const WRITERS_T0 = Date.parse('2026-11-21T04:30:00Z');

/** The event the poll writer hands over as its `index`th. */
export function writerEvent(index: number): Notification {
  const key = `ringing{call_id=c${index}}`;
  const at = new Date(WRITERS_T0 + index * 1000).toISOString();
  return {
    id: `${key}|firing|${at}`,
    at,
    source: 'live_calls',
    rule: 'ringing',
    status: 'firing',
    severity: 'warning',
    channels: ['oncall'],
    key,
    labels: { call_id: `c${index}` },
    sms: `FIRING ringing c${index}`,
    subject: `FIRING ringing c${index}`,
    text: `call c${index} is ringing`,
  };
}
