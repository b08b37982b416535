import type { Random } from './random';
import { AGENTS, DIDS, GATEWAYS } from './roster';
import type { CallEvent, PaymentEvent } from './types';

/** Serials per window: window `index` uses `index * SERIALS_PER_WINDOW + k`. */
export const SERIALS_PER_WINDOW = 1000;

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

/** Ten-digit numbers for callers, stable per draw. */
export function callerNumber(random: Random): string {
  return `+9199${String(random.int(0, 99_999_999)).padStart(8, '0')}`;
}

export interface CallMix {
  readonly count: readonly [number, number];
  readonly ringMs: readonly [number, number];
  readonly talkMs: readonly [number, number];
  /** Probability that somebody answers. */
  readonly answered: number;
  /** Probability an inbound call rings several agents at once. */
  readonly ringAll: number;
  readonly outbound: number;
}

/** Ordinary traffic: calls spread over one window, on any DID. */
export function ordinaryCalls(
  random: Random,
  index: number,
  windowMs: number,
  mix: CallMix,
  firstSerial: number,
): CallEvent[] {
  const count = random.int(mix.count[0], mix.count[1]);
  const calls: CallEvent[] = [];
  for (let k = 0; k < count; k++) {
    const direction = random.chance(mix.outbound) ? 2 : 1;
    const agents =
      direction === 1 && random.chance(mix.ringAll) ? pickAgents(random, 3) : [random.pick(AGENTS)];
    const answered = random.chance(mix.answered);
    calls.push({
      serial: index * SERIALS_PER_WINDOW + firstSerial + k,
      startMs: index * windowMs + random.int(0, windowMs - 1),
      ringMs: random.int(mix.ringMs[0], mix.ringMs[1]),
      ...(answered ? { talkMs: random.int(mix.talkMs[0], mix.talkMs[1]) } : {}),
      direction,
      did: random.pick(DIDS),
      caller: callerNumber(random),
      agents,
    });
  }
  return calls;
}

/** `n` distinct agents. */
export function pickAgents(random: Random, n: number): CallEvent['agents'] {
  const pool = [...AGENTS];
  const chosen = [];
  while (chosen.length < n && pool.length > 0) {
    chosen.push(...pool.splice(random.int(0, pool.length - 1), 1));
  }
  return chosen;
}

export interface PaymentMix {
  readonly count: readonly [number, number];
  /** Rupees. */
  readonly amount: readonly [number, number];
  readonly settleMs: readonly [number, number];
}

/** Ordinary payments: created pending, each settles after a while. */
export function ordinaryPayments(
  random: Random,
  index: number,
  windowMs: number,
  mix: PaymentMix,
  firstSerial: number,
): PaymentEvent[] {
  const count = random.int(mix.count[0], mix.count[1]);
  const payments: PaymentEvent[] = [];
  for (let k = 0; k < count; k++) {
    // Round rupee amounts most of the time, paise now and then.
    const rupees = random.int(mix.amount[0], mix.amount[1]);
    const paise = random.chance(0.3) ? random.int(1, 99) : 0;
    payments.push({
      serial: index * SERIALS_PER_WINDOW + firstSerial + k,
      atMs: index * windowMs + random.int(0, windowMs - 1),
      paidPaise: rupees * 100 + paise,
      settleMs: random.int(mix.settleMs[0], mix.settleMs[1]),
      gateway: random.pick(GATEWAYS),
    });
  }
  return payments;
}
