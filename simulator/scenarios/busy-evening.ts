import {
  callerNumber,
  MINUTE,
  ordinaryCalls,
  ordinaryPayments,
  pickAgents,
  SECOND,
  SERIALS_PER_WINDOW,
} from './common';
import { createRandom, mixSeed } from './random';
import { DIDS } from './roster';
import type { CallEvent, PaymentEvent, Scenario } from './types';

const WINDOW_MS = 10 * MINUTE;
/** The spike: every third window (every 30 minutes), starting one minute into the window. */
export const SPIKE_EVERY_WINDOWS = 3;
export const SPIKE_OFFSET_MS = MINUTE;
export const SPIKE_CALLS = 9;
/** Every spike call is still ringing from `SPIKE_OFFSET_MS + 30s` to `SPIKE_OFFSET_MS + 150s`. */
export const SPIKE_DID = DIDS[0] ?? '+918000000001';

function spike(index: number, seed: number): CallEvent[] {
  const random = createRandom(mixSeed(seed, 'busy-evening-spike', index));
  const calls: CallEvent[] = [];
  for (let k = 0; k < SPIKE_CALLS; k++) {
    const answered = random.chance(0.6);
    calls.push({
      serial: index * SERIALS_PER_WINDOW + 900 + k,
      startMs: index * WINDOW_MS + SPIKE_OFFSET_MS + random.int(0, 30 * SECOND),
      ringMs: random.int(150 * SECOND, 210 * SECOND),
      ...(answered ? { talkMs: random.int(MINUTE, 5 * MINUTE) } : {}),
      direction: 1,
      did: SPIKE_DID,
      caller: callerNumber(random),
      agents: pickAgents(random, random.chance(0.5) ? 3 : 1),
    });
  }
  return calls;
}

/** Money moving during the rush, every 30 minutes: a large payment and a slow one. */
export const LARGE_PAISE = 150_000_00;
/** The slow payment stays pending 45 minutes, then succeeds: stuck, then resolved. */
export const SLOW_SETTLE_MS = 45 * MINUTE;

function moneyEvents(index: number, seed: number): PaymentEvent[] {
  const random = createRandom(mixSeed(seed, 'busy-evening-money', index));
  const base = index * SERIALS_PER_WINDOW;
  const start = index * WINDOW_MS;
  return [
    {
      serial: base + 950,
      atMs: start + 2 * MINUTE + random.int(0, 30 * SECOND),
      paidPaise: LARGE_PAISE + random.int(0, 50_000) * 100,
      settleMs: random.int(20 * SECOND, 60 * SECOND),
      gateway: 'Razorpay',
    },
    {
      serial: base + 951,
      atMs: start + 3 * MINUTE,
      paidPaise: random.int(499, 4999) * 100,
      settleMs: SLOW_SETTLE_MS,
      gateway: 'Razorpay',
    },
  ];
}

/** An evening rush: steady traffic on every DID and, every 30 minutes, a ringing spike on one. */
export const busyEvening: Scenario = {
  name: 'busy-evening',
  description: `evening rush: every 30 min ${SPIKE_CALLS} calls ringing on ${SPIKE_DID}, a payment over 150000.00, one pending 45 min`,
  windowMs: WINDOW_MS,
  maxCallMs: 210 * SECOND + 8 * MINUTE,
  events(index, seed) {
    const random = createRandom(mixSeed(seed, 'busy-evening', index));
    const calls = ordinaryCalls(
      random,
      index,
      WINDOW_MS,
      {
        count: [25, 40],
        ringMs: [5 * SECOND, 60 * SECOND],
        talkMs: [30 * SECOND, 8 * MINUTE],
        answered: 0.85,
        ringAll: 0.2,
        outbound: 0.15,
      },
      0,
    );
    const payments = ordinaryPayments(
      random,
      index,
      WINDOW_MS,
      { count: [2, 5], amount: [299, 9999], settleMs: [20 * SECOND, 3 * MINUTE] },
      0,
    );
    const rush = index % SPIKE_EVERY_WINDOWS === 0;
    return {
      calls: rush ? [...calls, ...spike(index, seed)] : calls,
      payments: rush ? [...payments, ...moneyEvents(index, seed)] : payments,
    };
  },
};
