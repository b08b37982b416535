import * as z from '../schema/zod';
import { tryParseDuration } from '../time/duration';

/**
 * A time the notifier did not run (`{"at":...,"notifier":{"down":"30m"}}`): from `fromMs` to
 * `toMs`, the pollers poll and people act as ever, and the events wait for the notifier's
 * first run after it (at `toMs`), as deployed they wait in the state table.
 */
export interface NotifierOutage {
  readonly fromMs: number;
  readonly toMs: number;
}

const OutageLineSchema = z.strictObject({
  at: z.string(),
  notifier: z.strictObject({ down: z.string() }),
});

/** An outage line, its time read by the caller. */
export function readOutageLine(
  json: Record<string, unknown>,
  atMs: number,
): { outage: NotifierOutage } | { message: string } {
  const parsed = OutageLineSchema.safeParse(json);
  if (!parsed.success) {
    const said = (issue: z.core.$ZodIssue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    };
    return { message: parsed.error.issues.map(said).join('; ') };
  }
  const { down } = parsed.data.notifier;
  const ms = tryParseDuration(down);
  if (ms === undefined || ms <= 0) {
    return { message: `notifier.down: "${down}" is not a duration (90s, 15m, 2h)` };
  }
  return { outage: { fromMs: atMs, toMs: atMs + ms } };
}

/** When the notifier runs again, if it is down at `atMs`; undefined when it runs. */
export function downUntil(outages: readonly NotifierOutage[], atMs: number): number | undefined {
  let until: number | undefined;
  for (const { fromMs, toMs } of outages) {
    if (fromMs <= atMs && atMs < toMs) until = Math.max(until ?? toMs, toMs);
  }
  return until;
}
