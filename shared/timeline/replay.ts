import type { Config, SourceName } from '../config/types';
import { evaluate } from '../engine/evaluate';
import type { Notification, SourceState } from '../engine/types';
import type { TimelineEntry } from './parse';

/** States per source to start a replay from. */
export type ReplayStates = Partial<Record<SourceName, SourceState>>;

/**
 * Folds `evaluate` over a timeline, each source with its own state, and returns every
 * notification in order: what `telealert replay` prints. Pure.
 */
export function replayTimeline(
  config: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
): Notification[] {
  return replayWithState(config, entries, initial).notifications;
}

/** Like `replayTimeline`, also returning the final state of each source. */
export function replayWithState(
  config: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
): { notifications: Notification[]; states: ReplayStates } {
  const states: ReplayStates = { ...initial };
  const notifications: Notification[] = [];
  for (const entry of entries) {
    const result = evaluate(config, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    notifications.push(...result.notifications);
  }
  return { notifications, states };
}
