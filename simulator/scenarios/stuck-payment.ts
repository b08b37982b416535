import { MINUTE, ordinaryCalls, ordinaryPayments, SECOND, SERIALS_PER_WINDOW } from './common';
import { createRandom, mixSeed } from './random';
import type { PaymentEvent, Scenario } from './types';

const WINDOW_MS = 10 * MINUTE;
/** Every sixth window (hourly) brings a new stuck payment and a new large one. */
export const INCIDENT_EVERY_WINDOWS = 6;
/** The stuck payment of an incident window: created 20s in, pending for ever. */
export const STUCK_AT_MS = 20 * SECOND;
export const STUCK_SERIAL_OFFSET = 900;
/** The large payment: created 45s in, settles 30s later. */
export const LARGE_AT_MS = 45 * SECOND;
export const LARGE_PAISE = 250_000_00;
export const LARGE_SERIAL_OFFSET = 901;
/** Ordinary ones in an incident window: created in the first minute, settled within 2.5 min. */
export const SETTLING_SERIAL_OFFSET = 910;

function incident(index: number, seed: number): PaymentEvent[] {
  const random = createRandom(mixSeed(seed, 'stuck-payment-incident', index));
  const base = index * SERIALS_PER_WINDOW;
  const start = index * WINDOW_MS;
  const settling: PaymentEvent[] = [0, 1, 2].map((k) => ({
    serial: base + SETTLING_SERIAL_OFFSET + k,
    atMs: start + random.int(5 * SECOND, MINUTE),
    paidPaise: random.int(499, 2999) * 100,
    settleMs: random.int(60 * SECOND, 90 * SECOND),
    gateway: random.pick(['Razorpay', 'Instamojo'] as const),
  }));
  return [
    {
      serial: base + STUCK_SERIAL_OFFSET,
      atMs: start + STUCK_AT_MS,
      paidPaise: 1499_00,
      gateway: 'Razorpay',
    },
    {
      serial: base + LARGE_SERIAL_OFFSET,
      atMs: start + LARGE_AT_MS,
      paidPaise: LARGE_PAISE,
      settleMs: 30 * SECOND,
      gateway: 'Instamojo',
    },
    ...settling,
  ];
}

/** Payments trouble: one payment stuck pending, one very large one, others that settle. */
export const stuckPayment: Scenario = {
  name: 'stuck-payment',
  description:
    'payments trouble: hourly, one payment stuck pending for ever, one of 250000.00, and others that settle',
  windowMs: WINDOW_MS,
  maxCallMs: 25 * SECOND + 6 * MINUTE,
  events(index, seed) {
    const random = createRandom(mixSeed(seed, 'stuck-payment', index));
    const payments = ordinaryPayments(
      random,
      index,
      WINDOW_MS,
      { count: [1, 3], amount: [199, 4999], settleMs: [20 * SECOND, 3 * MINUTE] },
      0,
    );
    return {
      calls: ordinaryCalls(
        random,
        index,
        WINDOW_MS,
        {
          count: [2, 5],
          ringMs: [4 * SECOND, 25 * SECOND],
          talkMs: [30 * SECOND, 6 * MINUTE],
          answered: 0.9,
          ringAll: 0.1,
          outbound: 0.2,
        },
        0,
      ),
      payments:
        index % INCIDENT_EVERY_WINDOWS === 0 ? [...payments, ...incident(index, seed)] : payments,
    };
  },
};
