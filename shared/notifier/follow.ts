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

/** A followed alert's place within its severity. */
interface Place {
  readonly key: string;
  readonly firedAt: number;
}

/** `a` fired before `b`, or as they fired and its key is less: `b` is displaced first. */
const older = (a: Place, b: Place): boolean =>
  a.firedAt !== b.firedAt ? a.firedAt < b.firedAt : a.key < b.key;

/**
 * The followed alerts by key, a `Map` that also keeps them per severity, oldest first, so
 * `displacedBy` reads its answer off the end of a list instead of passing over them all: a
 * flood past the limit asks it once per event (issue 27).
 */
export class FollowedAlerts extends Map<string, TrackedAlert> {
  /** By rank + 1: a severity the rules no longer know ranks -1, least severe, as in `before`. */
  readonly #bySeverity: Place[][] = [[], ...SEVERITIES.map(() => [])];

  constructor(entries: Iterable<readonly [string, TrackedAlert]> = []) {
    // `Map`'s own constructor would call `set` before `#bySeverity` exists.
    super();
    for (const [key, tracked] of entries) this.set(key, tracked);
  }

  override set(key: string, tracked: TrackedAlert): this {
    const was = this.get(key);
    if (was?.severity !== tracked.severity || was.firedAt !== tracked.firedAt) {
      if (was !== undefined) this.#unplace(key, was);
      const places = this.#places(tracked.severity);
      const place = { key, firedAt: tracked.firedAt };
      places.splice(placeOf(places, place), 0, place);
    }
    return super.set(key, tracked);
  }

  override delete(key: string): boolean {
    const was = this.get(key);
    if (was !== undefined) this.#unplace(key, was);
    return super.delete(key);
  }

  override clear(): void {
    for (const places of this.#bySeverity) places.length = 0;
    super.clear();
  }

  /**
   * Which followed alert a newcomer of `severity` takes the place of when `MAX_FOLLOWED_ALERTS`
   * are followed: the least severe, and of those the newest (the last to fire, then the
   * greatest key), provided it is strictly less severe than the newcomer. Undefined: the
   * newcomer is not followed. So within one severity the first come keep their place (a flood
   * cannot take the escalation of alerts already waiting for it), and a critical alert is
   * never unfollowed while a warning is followed.
   */
  displacedBy(severity: Severity): string | undefined {
    // The lists at rank + 1 below the newcomer's, least severe first.
    for (let index = 0; index < rank(severity) + 1; index += 1) {
      const newest = this.#bySeverity[index]?.at(-1);
      if (newest !== undefined) return newest.key;
    }
    return undefined;
  }

  #places(severity: Severity): Place[] {
    const places = this.#bySeverity[rank(severity) + 1];
    // Unreachable: every rank + 1 is an index of `#bySeverity`.
    if (places === undefined) throw new RangeError(`no place for severity ${severity}`);
    return places;
  }

  #unplace(key: string, tracked: TrackedAlert): void {
    const places = this.#places(tracked.severity);
    places.splice(placeOf(places, { key, firedAt: tracked.firedAt }), 1);
  }
}

/** Where `place` is, or would go, in `places` (oldest first): a binary search. */
function placeOf(places: readonly Place[], place: Place): number {
  let low = 0;
  let high = places.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const at = places[middle];
    if (at !== undefined && older(at, place)) low = middle + 1;
    else high = middle;
  }
  return low;
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
