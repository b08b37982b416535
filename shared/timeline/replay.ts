import { evaluate } from '../engine/evaluate';
import type { Notification, SourceState } from '../engine/types';
import type { Config, SourceName } from '../types/config';
import type { ConfigChange, TimelineEntry } from './parse';

/** States per source to start a replay from. */
export type ReplayStates = Partial<Record<SourceName, SourceState>>;

/**
 * Folds `evaluate` over a timeline, each source with its own state, and returns every
 * notification in order: what `telealert replay` prints (the untold resolutions of rules with
 * `resolved: false` left out: they are the notifier's alone). A line of a source no rule reads
 * is a poll that asked nothing, as deployed: it only ends the firing alerts of the rules
 * removed from the file (no `source_unavailable` for it, whatever the line says). A deploy of
 * another rules file (`changes`) holds from the first entry at or after its time. Pure.
 */
export function replayTimeline(
  config: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
  changes: readonly ConfigChange[] = [],
): Notification[] {
  return replayWithState(config, entries, initial, changes).notifications.filter(
    (notification) => notification.untold !== true,
  );
}

/** Like `replayTimeline` (untold resolutions included), also returning each source's final state. */
export function replayWithState(
  first: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
  changes: readonly ConfigChange[] = [],
): { notifications: Notification[]; states: ReplayStates } {
  const states: ReplayStates = { ...initial };
  const notifications: Notification[] = [];
  let config = first;
  let nextChange = 0;
  for (const entry of entries) {
    for (let change = changes[nextChange]; change !== undefined && change.atMs <= entry.atMs; ) {
      config = change.config;
      nextChange += 1;
      change = changes[nextChange];
    }
    const result = evaluate(config, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    // One at a time: spreading a huge evaluation into push() overflows the call stack.
    for (const notification of result.notifications) notifications.push(notification);
  }
  return { notifications, states };
}
