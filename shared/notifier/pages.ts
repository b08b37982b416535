import type { ChannelConfig } from '../types/config';
import { SEVERITIES } from '../types/config';
import { highestSeverity } from './bodies';
import { isPage } from './tracked';
import type { HeldEvent } from './types';

/** Whether a channel's message telling these events carries an SMS (`minSeverity`). */
export function wantsSms(channel: ChannelConfig, events: readonly HeldEvent[]): boolean {
  if (channel.sms.length === 0) return false;
  const floor = SEVERITIES.indexOf(channel.minSeverity ?? 'info');
  return SEVERITIES.indexOf(highestSeverity({ alerts: events })) >= floor;
}

/**
 * A message telling these events pages past the SMS cap (contract 6.1 rule 2): it tells a
 * critical alert's first firing, even told resolved (it fired and resolved while held), or the
 * first telling of a firing a silence kept untold (`isPage`), not a repeat or resolution alone;
 * or a critical escalation deferred by active hours while its alert still fires
 * unacknowledged (resolved or acknowledged meanwhile, it is news, no longer a page).
 * `firesUnacknowledged`: `ChannelOptions.firesUnacknowledged`.
 */
export function pagesIn(
  events: readonly HeldEvent[],
  firesUnacknowledged: (key: string, firedAt: number | undefined) => boolean,
): boolean {
  const latest = new Map<string, HeldEvent>();
  for (const event of events) latest.set(event.key, event);
  return events.some((event) =>
    event.escalation === true
      ? event.severity === 'critical' &&
        latest.get(event.key)?.status === 'firing' &&
        firesUnacknowledged(event.key, firingOf(event))
      : isPage(event),
  );
}

/** When the firing an event belongs to fired (undefined: not known, an event of an older version). */
export function firingOf(event: HeldEvent): number | undefined {
  return event.firedAt ?? (event.status === 'firing' ? event.at : undefined);
}
