import type { FiringNote, HeldEvent } from './types';

/*
 * The firing alerts the notifier knows of without following them (contract 6.1 rule 7): an
 * `ack` message says `no firing alerts` only when none of its channel's alerts fires, so it
 * must know those whose rule neither repeats nor escalates (nothing to acknowledge) too. Kept
 * from their firing to their resolution (told, or untold for a `resolved: false` rule), as
 * little as a message needs to name them.
 */

/**
 * Noted firing alerts kept at most; past it the oldest notes go. An ack message names them a
 * fact each, and an SMS holds a handful: past this many, which of them it names matters little.
 * Bounds the state item (about 100 bytes a note).
 */
export const MAX_NOTED_FIRING = 500;

/** Notes a firing event of an alert not followed (its latest firing time), as the newest. */
export function note(
  notes: Map<string, FiringNote>,
  event: HeldEvent,
  channels: readonly string[],
): void {
  // A repeat keeps which channels heard the firing; a new firing starts unheard.
  const repeat = event.firedAt !== undefined && event.firedAt !== event.at;
  const heardOn = repeat ? notes.get(event.key)?.heardOn : undefined;
  notes.delete(event.key);
  notes.set(event.key, {
    rule: event.rule,
    source: event.source,
    severity: event.severity,
    labels: event.labels,
    channels,
    lastFiringAt: event.at,
    ...(heardOn === undefined ? {} : { heardOn }),
  });
}

/** A message told the noted alert's firing to one of its channels. */
export function noteHeard(notes: Map<string, FiringNote>, key: string, channel: string): void {
  const item = notes.get(key);
  if (item === undefined || !item.channels.includes(channel)) return;
  if (item.heardOn?.includes(channel) === true) return;
  notes.set(key, { ...item, heardOn: [...(item.heardOn ?? []), channel] });
}

/**
 * The notes as a step leaves them: the newest `MAX_NOTED_FIRING` kept (a step of a flood notes
 * more for a while: trimmed once here, as deleting a map's oldest entry one by one is quadratic
 * in V8). A note of a rule the rules file no longer has stays until the engine tells its
 * resolution at its source's next poll (contract 6.1 rule 8): every source is polled, also one
 * no rule reads any more.
 */
export function keptNotes(
  notes: ReadonlyMap<string, FiringNote>,
): Record<string, FiringNote> | undefined {
  if (notes.size === 0) return undefined;
  return Object.fromEntries([...notes].slice(-MAX_NOTED_FIRING));
}
