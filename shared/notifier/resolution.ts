import type { Notification } from '../engine/types';
import type { Routed } from './direct';
import { reachedChannels, toldByEscalation } from './tracked';
import type { HeldEvent, TrackedAlert } from './types';
import { neverHeard } from './untold';

/**
 * Who hears a resolution of a firing (`event`, told by the engine in `notification`), and how:
 * `tracked` is its alert as followed until now, if it was; `kept`, the channels a silence kept
 * the firing from that now never hear it (`untold.ts` `overWhenTold`). An untold one
 * (`resolved: false`): only a channel still holding the firing tells it, resolved, with its
 * firing time where neither a message of its own nor an escalation told the firing. Otherwise
 * whoever heard the firing hears the end (contract 6.1 rule 6), escalation's channels too; a
 * channel that never heard the firing is told its firing time (`unheard`, rule 3).
 */
export function resolutionRoutes(
  notification: Notification,
  event: HeldEvent,
  tracked: TrackedAlert | undefined,
  kept: ReadonlySet<string>,
): Routed[] {
  // Untold (`resolved: false`): only a channel still holding the firing tells it, resolved;
  // with its firing time where no message told the firing (a silence kept it: rule 3).
  if (notification.untold === true) {
    const escalated = tracked === undefined ? new Set<string>() : toldByEscalation(tracked);
    const unheard = notification.channels.filter(
      (name) => tracked !== undefined && neverHeard(tracked, name) && !escalated.has(name),
    );
    const heard = notification.channels.filter((name) => !unheard.includes(name));
    return [
      ...(heard.length > 0 ? [{ event, channels: heard }] : []),
      ...(unheard.length > 0
        ? [{ event: { ...event, unheard: true as const }, channels: unheard }]
        : []),
    ];
  }
  // Whoever heard the firing hears the end (contract 6.1 rule 6): escalation's channels too.
  // Not a channel only its escalation reached, where a silence kept that until now: it
  // never heard the firing (its own channels are told the end all the same, rule 3).
  const reached = tracked === undefined ? new Set<string>() : reachedChannels(tracked);
  for (const name of [...kept, ...(tracked?.escalationKept ?? [])]) {
    if (!notification.channels.includes(name)) reached.delete(name);
  }
  const channels = [...new Set([...notification.channels, ...reached])];
  // Channels its firing never went to (the rule's notify changed meanwhile), or never heard
  // (a silence kept it untold until now): told firedAt (contract 6.1 rule 3). A followed
  // alert knows where its firing and repeats went; the engine says it of others. A channel
  // an escalation step told heard it (a channel renamed into the rule's notify after its
  // firing went, which the step reached under its new name).
  const escalated = tracked === undefined ? new Set<string>() : toldByEscalation(tracked);
  const fresh = new Set(
    tracked === undefined
      ? (notification.newTo ?? [])
      : notification.channels.filter(
          (name) => !reached.has(name) || (neverHeard(tracked, name) && !escalated.has(name)),
        ),
  );
  const heard = channels.filter((name) => !fresh.has(name));
  const routed: Routed[] = [];
  if (heard.length > 0) routed.push({ event, channels: heard });
  if (fresh.size > 0) routed.push({ event: { ...event, unheard: true }, channels: [...fresh] });
  return routed;
}
