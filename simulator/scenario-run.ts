import {
  type RenderContext,
  renderCall,
  renderPayment,
  type SimCall,
  type SimPayment,
} from './records';
import type { Scenario } from './scenarios/types';

/** A scenario running from `startMs` with a seed, rendering times in `zone`. */
export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly startMs: number;
  readonly seed: number;
  readonly zone: string;
}

function windowOf(scenario: Scenario, elapsedMs: number): number {
  return Math.floor(elapsedMs / scenario.windowMs);
}

/** The live calls at `nowMs`, oldest first (one row each, or one per agent for some ring-alls). */
export function liveCallsAt(run: ScenarioRun, nowMs: number): SimCall[] {
  const elapsed = nowMs - run.startMs;
  if (elapsed < 0) return [];
  const context: RenderContext = { ...run, nowMs };
  const first = Math.max(0, windowOf(run.scenario, elapsed - run.scenario.maxCallMs));
  const last = windowOf(run.scenario, elapsed);
  const calls = [];
  for (let index = first; index <= last; index++) {
    calls.push(...run.scenario.events(index, run.seed).calls);
  }
  calls.sort((a, b) => a.startMs - b.startMs || a.serial - b.serial);
  return calls.flatMap((call) => renderCall(call, context));
}

/**
 * The payment log at `nowMs`, newest first: every payment created since the start and up to
 * `nowMs`. `sinceMs` (epoch) only spares generating windows that end before it; the caller
 * still filters by exact time.
 */
export function paymentsAt(run: ScenarioRun, nowMs: number, sinceMs = run.startMs): SimPayment[] {
  const elapsed = nowMs - run.startMs;
  if (elapsed < 0) return [];
  const context: RenderContext = { ...run, nowMs };
  const first = Math.max(0, windowOf(run.scenario, sinceMs - run.startMs));
  const last = windowOf(run.scenario, elapsed);
  const payments: SimPayment[] = [];
  for (let index = first; index <= last; index++) {
    for (const event of run.scenario.events(index, run.seed).payments) {
      const rendered = renderPayment(event, context);
      if (rendered) payments.push(rendered);
    }
  }
  return payments.sort((a, b) => b.createdMs - a.createdMs || b.paidPaise - a.paidPaise);
}
