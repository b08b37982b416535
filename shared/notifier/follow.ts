import { SEVERITIES, type Severity } from '../types/config';
import type { TrackedAlert } from './types';

/**
 * The firing alerts the notifier follows at most (for acknowledgement, escalation, and a
 * silence's end): Alertmanager's kind of limit on what one stage keeps. Why: they live in the
 * notifier's one DynamoDB item (refused over 350 KB compressed) beside the ids of the events a
 * step took in. Measured with the engine's own events for random payment and call ids (12,000
 * firings of rules that repeat and escalate: both pollers at their cap): following all of them
 * takes 550 KB (per-record rules) to 995 KB (three random group labels); 1,000 take 45 to 65 KB,
 * so with the ids of a round's step of 5,000 events (61-160 KB) the item holds 151-226 KB.
 * Past 1,000 firing alerts, paging per alert has stopped meaning much; they are told all the same.
 */
export const MAX_FOLLOWED_ALERTS = 1_000;

/** `1,000`: the limit as messages and errors write it. */
export function formatLimit(limit: number): string {
  return String(limit).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const rank = (severity: Severity): number => SEVERITIES.indexOf(severity);

/**
 * Which followed alert a newcomer of `severity` takes the place of when `MAX_FOLLOWED_ALERTS`
 * are followed: the least severe, and of those the newest (the last to fire, then the greatest
 * key), provided it is strictly less severe than the newcomer. Undefined: the newcomer is not
 * followed. So within one severity the first come keep their place (a flood cannot take the
 * escalation of alerts already waiting for it), and a critical alert is never unfollowed
 * while a warning is followed.
 */
export function displacedBy(
  alerts: ReadonlyMap<string, TrackedAlert>,
  severity: Severity,
): string | undefined {
  let chosen: { key: string; tracked: TrackedAlert } | undefined;
  for (const [key, tracked] of alerts) {
    if (rank(tracked.severity) >= rank(severity)) continue;
    if (chosen === undefined || before(key, tracked, chosen.key, chosen.tracked)) {
      chosen = { key, tracked };
    }
  }
  return chosen?.key;
}

/** `a` is displaced before `b`: less severe, or as severe and newer. */
function before(aKey: string, a: TrackedAlert, bKey: string, b: TrackedAlert): boolean {
  if (a.severity !== b.severity) return rank(a.severity) < rank(b.severity);
  if (a.firedAt !== b.firedAt) return a.firedAt > b.firedAt;
  return aKey > bKey;
}

/**
 * The keys to stop following so that at most `limit` remain, in the order `displacedBy` would
 * take them: for a state kept before the limit existed, or under a larger one.
 */
export function overLimit(alerts: ReadonlyMap<string, TrackedAlert>, limit: number): string[] {
  const excess = alerts.size - limit;
  if (excess <= 0) return [];
  return [...alerts]
    .sort(([aKey, a], [bKey, b]) => (before(aKey, a, bKey, b) ? -1 : 1))
    .slice(0, excess)
    .map(([key]) => key);
}
