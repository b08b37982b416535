import { evaluate } from '../engine/evaluate';
import type { Notification, SourceState } from '../engine/types';
import { decide } from '../notifier/decide';
import { applyAction, type PersonAction } from '../notifier/people';
import type { Message, MutedEvent, NotifierState, Outbound } from '../notifier/types';
import type { Config, SourceName } from '../types/config';
import { downUntil, type NotifierOutage } from './outage';
import type { ConfigChange, TimelineAction, TimelineEntry } from './parse';

/** Ticks after the last entry before replay gives up on a notifier that keeps being due. */
const MAX_TRAILING_TICKS = 10_000;

/** What a replay with messages produces. */
export interface MessageReplay {
  readonly messages: readonly Message[];
  /** Each message with what it delivers (for tests that count events per message). */
  readonly outbound: readonly Outbound[];
  readonly notifier: NotifierState | undefined;
  /** Events recorded instead of sent (silenced, or repeats of acknowledged alerts). */
  readonly muted: readonly MutedEvent[];
}

/**
 * Replays a timeline through the engine and the notifier (`telealert replay --messages`): each
 * entry's events go to the notifier at the entry's time; between entries the notifier's clock
 * ticks at each time it said it is due (a rotation's handoff too); after the last entry it ticks
 * until nothing but handoffs is due (the last held group, the last digest). A deploy of another
 * rules file (`changes`) takes effect at its time, for the notifier and the engine alike. While
 * the notifier is down (`outages`) the engine goes on and people's actions reach its state, as
 * deployed; the events wait for its first step after, at the outage's end. Pure.
 */
export function replayMessages(
  first: Config,
  entries: readonly TimelineEntry[],
  actions: readonly TimelineAction[] = [],
  changes: readonly ConfigChange[] = [],
  outages: readonly NotifierOutage[] = [],
): MessageReplay {
  const states: Partial<Record<SourceName, SourceState>> = {};
  let config = first;
  let nextChange = 0;
  const outbound: Outbound[] = [];
  const muted: MutedEvent[] = [];
  let notifier: NotifierState | undefined;
  let dueAt: number | undefined;
  // Whether anything but a rotation's next handoff is due: trailing ticks stop when not.
  let held = false;
  // Events decided while the notifier was down, for its first step after.
  const waiting: Notification[] = [];
  const step = (
    events: Parameters<typeof decide>[2],
    nowMs: number,
    acts: readonly PersonAction[] = [],
  ) => {
    const down = downUntil(outages, nowMs);
    if (down !== undefined) {
      for (const event of events) waiting.push(event);
      for (const action of acts) notifier = applyAction(notifier, action, nowMs);
      dueAt = down;
      held = true;
      return;
    }
    const backlog = waiting.length === 0 ? events : [...waiting, ...events];
    waiting.length = 0;
    const decision = decide(config, notifier, backlog, nowMs, acts);
    for (const event of decision.muted) muted.push(event);
    notifier = decision.state;
    // A due time that is not ahead would tick forever; the next entry's step picks it up.
    dueAt =
      decision.nextDueAtMs !== undefined && decision.nextDueAtMs > nowMs
        ? decision.nextDueAtMs
        : undefined;
    held = decision.heldDueAtMs !== undefined;
    for (const message of decision.messages) outbound.push(message);
  };
  let next = 0;
  // Deploys at or before `atMs`: the notifier steps under the new file at once (what a channel
  // gone from it kept goes to health.notify then); the pollers read it from their next poll.
  const deployUntil = (atMs: number) => {
    for (let change = changes[nextChange]; change !== undefined && change.atMs <= atMs; ) {
      while (dueAt !== undefined && dueAt < change.atMs) step([], dueAt);
      config = change.config;
      step([], change.atMs);
      nextChange += 1;
      change = changes[nextChange];
    }
  };
  // Actions at or before `atMs` go to the notifier at their own time, before the entry; a
  // deploy at an action's time comes before it.
  const actUntil = (atMs: number) => {
    for (let action = actions[next]; action !== undefined && action.atMs <= atMs; ) {
      deployUntil(action.atMs);
      while (dueAt !== undefined && dueAt < action.atMs) step([], dueAt);
      step([], action.atMs, [action.action]);
      next += 1;
      action = actions[next];
    }
    deployUntil(atMs);
  };
  for (const entry of entries) {
    actUntil(entry.atMs);
    while (dueAt !== undefined && dueAt < entry.atMs) step([], dueAt);
    const result = evaluate(config, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    step(result.notifications, entry.atMs);
  }
  actUntil(Number.POSITIVE_INFINITY);
  for (let tick = 0; dueAt !== undefined && held && tick < MAX_TRAILING_TICKS; tick += 1) {
    step([], dueAt);
  }
  return { messages: outbound.map((item) => item.message), outbound, notifier, muted };
}
