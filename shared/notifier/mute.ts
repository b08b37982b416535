import { firingOf } from './pages';
import { silenceFor } from './silence';
import { isFirstFiring } from './tracked';
import type { HeldEvent, Silence } from './types';

/** An event a silence matched when its channel was about to tell it. */
export interface SilencedEvent {
  readonly event: HeldEvent;
  readonly by: Silence;
}

/**
 * The silence stage of a channel (contract 6.1 rule 5: it runs when a message goes). Splits
 * events into those to tell and those a silence in force matches now. A resolution
 * told whose first firing a silence keeps here (a deploy changed its rule's severity between
 * them, and the silence matches the firing's only) tells its firing's time: it fired and
 * resolved while held (contract 6.1 rule 3).
 */
export function unsilenced(
  events: readonly HeldEvent[],
  silences: readonly Silence[],
  nowMs: number,
  out: SilencedEvent[],
) {
  if (silences.length === 0) return events;
  const told: HeldEvent[] = [];
  const kept = new Set<string>();
  for (const event of events) {
    const by = silenceFor(silences, event, nowMs);
    if (by === undefined) told.push(event);
    else {
      out.push({ event, by });
      if (isFirstFiring(event)) kept.add(`${event.key}\u0000${String(firingOf(event))}`);
    }
  }
  if (kept.size === 0) return told;
  return told.map((event) =>
    event.status === 'resolved' &&
    event.unheard !== true &&
    kept.has(`${event.key}\u0000${String(firingOf(event))}`)
      ? { ...event, unheard: true as const }
      : event,
  );
}
