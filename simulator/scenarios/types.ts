import type { Agent, Gateway } from './roster';

/**
 * One call in a scenario's timeline. Times are milliseconds after the scenario's start, so a
 * scenario starts "now" whatever the clock says.
 */
export interface CallEvent {
  /** Unique within the scenario; ids and per-record drift derive from it. */
  readonly serial: number;
  readonly startMs: number;
  /** How long it rings. */
  readonly ringMs: number;
  /** Talk time once answered; absent when nobody answers (the call ends after ringing). */
  readonly talkMs?: number;
  /** 1 inbound, 2 outbound. */
  readonly direction: 1 | 2;
  /** Canonical numbers. */
  readonly did: string;
  readonly caller: string;
  /** The agents it rings; the first one answers. Several: a ring-all call. */
  readonly agents: readonly Agent[];
}

/** One online payment in a scenario's timeline. */
export interface PaymentEvent {
  readonly serial: number;
  /** When it is created (pending), after the scenario's start. */
  readonly atMs: number;
  /** Amount paid in paise (exact); tax and amount added derive from it. */
  readonly paidPaise: number;
  /** Pending this long, then success; absent: stuck pending forever. */
  readonly settleMs?: number;
  readonly gateway: Gateway;
}

export interface WindowEvents {
  readonly calls: readonly CallEvent[];
  readonly payments: readonly PaymentEvent[];
}

/**
 * A scenario: a pure, seeded timeline, generated window by window so it can run forever
 * (the demo) without generating more than the windows a request looks at.
 */
export interface Scenario {
  readonly name: string;
  /** One line, for `--help` and docs/simulator.md. */
  readonly description: string;
  readonly windowMs: number;
  /** The longest a call lives (ring + talk), so the engine knows how far back to look. */
  readonly maxCallMs: number;
  /**
   * The events starting in window `index`, i.e. in `[index * windowMs, (index + 1) * windowMs)`
   * after the start. Pure: the same (index, seed) always gives the same events.
   */
  events(index: number, seed: number): WindowEvents;
}
