import { MINUTE, ordinaryCalls, ordinaryPayments, SECOND } from './common';
import { createRandom, mixSeed } from './random';
import type { Scenario } from './types';

const WINDOW_MS = 10 * MINUTE;

/** A calm day: a few calls that ring briefly and get answered, a payment now and then. */
export const quiet: Scenario = {
  name: 'quiet',
  description: 'a calm day: a few calls that ring briefly and are answered, occasional payments',
  windowMs: WINDOW_MS,
  maxCallMs: 25 * SECOND + 6 * MINUTE,
  events(index, seed) {
    const random = createRandom(mixSeed(seed, 'quiet', index));
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
      payments: ordinaryPayments(
        random,
        index,
        WINDOW_MS,
        { count: [0, 2], amount: [199, 4999], settleMs: [20 * SECOND, 3 * MINUTE] },
        0,
      ),
    };
  },
};
