import { evaluate } from '../engine/evaluate';
import type { Notification, SourceState } from '../engine/types';
import type { Config, SourceName } from '../types/config';
import type { TimelineEntry } from './parse';

/** States per source to start a replay from. */
export type ReplayStates = Partial<Record<SourceName, SourceState>>;

/**
 * Folds `evaluate` over a timeline, each source with its own state, and returns every
 * notification in order: what `telealert replay` prints (the untold resolutions of rules with
 * `resolved: false` left out: they are the notifier's alone). A source no rule reads is never
 * polled deployed, so its lines change nothing here either (no `source_unavailable` for it). Pure.
 */
export function replayTimeline(
  config: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
): Notification[] {
  return replayWithState(config, entries, initial).notifications.filter(
    (notification) => notification.untold !== true,
  );
}

/** Like `replayTimeline` (untold resolutions included), also returning each source's final state. */
export function replayWithState(
  config: Config,
  entries: readonly TimelineEntry[],
  initial: ReplayStates = {},
): { notifications: Notification[]; states: ReplayStates } {
  const states: ReplayStates = { ...initial };
  const notifications: Notification[] = [];
  const watched = new Set(config.rules.map((rule) => rule.source));
  for (const entry of entries) {
    if (!watched.has(entry.source)) continue;
    const result = evaluate(config, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    // One at a time: spreading a huge evaluation into push() overflows the call stack.
    for (const notification of result.notifications) notifications.push(notification);
  }
  return { notifications, states };
}
