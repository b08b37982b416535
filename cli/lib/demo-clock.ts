import { DAY_MS, resolveLocal, zoneOffsetMs } from '../../shared/time/offsets';

/**
 * Where the demo's simulated clock starts: 20:20 on the rules' wall clock. The busy evening's
 * first stuck payment pages about 33 minutes in (20:53), so the shipped rotation's 21:00
 * handoff to the night shift falls 40 minutes in, listing it, and its 10-minute repeat and its
 * resolution reach the incoming person: a page, the handoff and the repeat within the demo's
 * first minute of real time.
 */
export const DEMO_START_LOCAL_MS = (20 * 60 + 20) * 60_000;

/**
 * The demo's starting instant: the latest 20:20 in `zone` at or before `nowMs` (today's, or
 * yesterday's before 20:20), so the printed dates are never ahead of the real ones.
 */
export function demoStartMs(nowMs: number, zone: string): number {
  const local = nowMs + zoneOffsetMs(nowMs, zone);
  const today = Math.floor(local / DAY_MS) * DAY_MS + DEMO_START_LOCAL_MS;
  const start = resolveLocal(today, zone);
  return start <= nowMs ? start : resolveLocal(today - DAY_MS, zone);
}
