/** Where the simulator reads the time. Tests pass a `ManualClock`; the demo a `fastClock`. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to, for tests. */
export class ManualClock implements Clock {
  #nowMs: number;

  constructor(startMs: number) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  /** Jumps to an instant (epoch ms). */
  set(ms: number): void {
    this.#nowMs = ms;
  }

  /** Moves forward (or back, with a negative value) by `ms`. */
  advance(ms: number): void {
    this.#nowMs += ms;
  }
}

/**
 * A clock for the demo: simulated time starts at `startMs` and runs `factor` times faster than
 * real time, so a minute of scenario passes in a few seconds. `realNow` is injectable so the
 * arithmetic can be tested without waiting.
 */
export function fastClock(
  startMs: number,
  factor: number,
  realNow: () => number = Date.now,
): Clock {
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new RangeError(`clock factor must be a positive number, got ${factor}`);
  }
  const realStart = realNow();
  return { now: () => startMs + Math.floor((realNow() - realStart) * factor) };
}
