import type { Config } from '../types/config';
import type { Direct } from './direct';
import type { ChannelState, HeldEvent } from './types';

/**
 * What channels gone from the rules file (removed, or renamed: telealert cannot tell a rename
 * from a removal and a new channel) still kept, handed to the `health.notify` channels at once
 * (contract 6.1 rule 8): the events its groups held, those active hours deferred, and those
 * whose SMS the cap held (emailed to it, never paged). One message per gone channel and health
 * channel, a `digest` saying which channel is gone and why, whatever the health channel's hours
 * (the SMS cap still counts it). Gone channels with nothing kept hand over nothing; either way
 * their state is forgotten. By health channel, in the order the gone channels were kept.
 */
export function handovers(
  config: Config,
  kept: Readonly<Record<string, ChannelState>>,
): Map<string, Direct[]> {
  const out = new Map<string, Direct[]>();
  const targets = config.health.notify.filter((name) => config.channels[name] !== undefined);
  for (const [gone, state] of Object.entries(kept)) {
    if (config.channels[gone] !== undefined) continue;
    const events = keptEvents(state);
    if (events.length === 0) continue;
    const direct: Direct = {
      reason: 'handover',
      groupKey: `handover|${gone}`,
      title: gone,
      events,
      // The first telling of each to the health channel, the cap's held SMS included.
      delivers: events.map((event) => event.id),
    };
    for (const target of targets) {
      const list = out.get(target);
      if (list) list.push(direct);
      else out.set(target, [direct]);
    }
  }
  return out;
}

/** A channel's kept events in time order, so each alert's line tells its latest status. */
function keptEvents(state: ChannelState): HeldEvent[] {
  const held = Object.values(state.groups).flatMap((group) => group.held);
  const all = [...state.smsHeld, ...held, ...state.deferred];
  // Stable: events of one time keep the order they were kept in.
  return all
    .map((event, index) => ({ event, index }))
    .sort((a, b) => a.event.at - b.event.at || a.index - b.index)
    .map(({ event }) => event);
}
