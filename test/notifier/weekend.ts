import { gzipSync } from 'node:zlib';
import type { Notification } from '../../shared/engine/types';
import { type DecideOptions, decide } from '../../shared/notifier/decide';
import type { Decision, NotifierState } from '../../shared/notifier/types';
import type { Config } from '../../shared/types/config';
import { config, MINUTE } from '../engine/fixtures';

/** Friday 2026-11-27 18:00 IST, when finance's office closes for the weekend. */
export const FRIDAY_CLOSE = Date.parse('2026-11-27T18:00:00+05:30');
/** Monday 2026-11-30 09:00 IST, when it opens again. */
export const MONDAY_OPEN = Date.parse('2026-11-30T09:00:00+05:30');

/** Finance keeps office hours (Mon-Fri 09:00-18:00 IST); grouped by rule, as shipped. */
export const OFFICE: Config = config([], {
  channels: {
    finance: {
      name: 'finance',
      sms: [],
      email: ['finance@example.com'],
      group: { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE },
      smsPerHour: 20,
      active: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinutes: 540, toMinutes: 1080 },
    },
  },
});

/** The key of flapping alert `n` (a payments gateway per merchant, say). */
export const flappingKey = (n: number) => `gateway-errors{merchant=m${String(n).padStart(4, '0')}}`;

/**
 * Alert `n` firing (even flips) or resolving (odd flips) at `atMs`, with real-sized texts and,
 * as the engine says, the time of the firing each event belongs to (`firedAtMs`).
 */
function flip(n: number, flipNo: number, atMs: number, firedAtMs: number): Notification {
  const status = flipNo % 2 === 0 ? 'firing' : 'resolved';
  const key = flappingKey(n);
  const at = new Date(atMs).toISOString();
  return {
    id: `${key}|${status}|${at}`,
    at,
    firedAt: new Date(firedAtMs).toISOString(),
    source: 'payments',
    rule: 'gateway-errors',
    status,
    // Now and then a flip at a higher severity: the digest must still say the highest.
    severity: flipNo % 97 === 3 ? 'critical' : 'warning',
    channels: ['finance'],
    key,
    labels: { merchant: `m${String(n).padStart(4, '0')}` },
    value: 5 + ((n + flipNo) % 7),
    sms: `${status.toUpperCase()} gateway-errors: merchant m${n}; ${5 + ((n + flipNo) % 7)} failed payments in 10m; warning`,
    subject: `[WARNING] ${status.toUpperCase()} gateway-errors: merchant m${n}`,
    text: `${status.toUpperCase()} gateway-errors (warning)\nmerchant m${n}: ${5 + ((n + flipNo) % 7)} failed payments in the last 10 minutes (threshold 5)\nat ${at}\nrule: payments where status = failed, count by merchant > 5 over 10m`,
  };
}

export interface Weekend {
  /** The state as the weekend leaves it, before Monday's digest. */
  readonly state: NotifierState;
  /** Events decided over the weekend. */
  readonly events: number;
  /** The step at Monday 09:00. */
  readonly monday: Decision;
}

/**
 * `alerts` alerts flapping (firing, resolving, firing...) every `everyMs` from Friday's close
 * to Monday's open, each flip handed to the notifier as the pollers' commits would, one step a
 * flip.
 */
export function flappingWeekend(
  alerts: number,
  everyMs: number,
  options: DecideOptions = {},
): Weekend {
  let state: NotifierState | undefined;
  let events = 0;
  let flipNo = 0;
  for (let at = FRIDAY_CLOSE; at < MONDAY_OPEN; at += everyMs) {
    const firedAt = flipNo % 2 === 0 ? at : at - everyMs;
    const batch = Array.from({ length: alerts }, (_, n) => flip(n, flipNo, at, firedAt));
    state = decide(OFFICE, state, batch, at, [], options).state;
    events += batch.length;
    flipNo += 1;
  }
  if (state === undefined) throw new Error('a weekend has steps');
  return { state, events, monday: decide(OFFICE, state, [], MONDAY_OPEN, [], options) };
}

/** Bytes of the state as the DynamoDB notifier store encodes it (gzip JSON), with no consumed ids. */
export function storedBytes(state: NotifierState): number {
  return gzipSync(JSON.stringify({ state, consumed: {} })).byteLength;
}

/**
 * `count` per-record alerts firing at `atMs` (payments stuck pending, ids `from` on), to finance:
 * each a distinct alert, which folding cannot shrink. Ids as hard to compress as real ones.
 */
export function distinctAlerts(from: number, count: number, atMs: number): Notification[] {
  const at = new Date(atMs).toISOString();
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const id = `pay_${((n * 2654435761) % 4294967296).toString(36)}${n}`;
    const key = `payment-stuck-pending{id=${id}}`;
    return {
      id: `${key}|firing|${at}`,
      at,
      source: 'payments',
      rule: 'payment-stuck-pending',
      status: 'firing',
      severity: 'warning',
      channels: ['finance'],
      key,
      labels: { id },
      sms: `FIRING payment-stuck-pending: ${id} pending 32m; INR 1,250.00; warning`,
      subject: `[WARNING] FIRING payment-stuck-pending: payment ${id}`,
      text: `FIRING payment-stuck-pending (warning)\npayment ${id}, INR 1,250.00, pending for 32 minutes`,
    };
  });
}
