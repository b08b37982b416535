import { compareNotifications } from '../engine/order';
import type { Notification } from '../engine/types';
import type { MessagePublisher, NotifierStore } from '../ports/notifier';
import type { OwedEvents } from '../ports/types';
import { type Config, SOURCES, type SourceName } from '../types/config';
import { type NotifierStepResult, notifierStep } from './notifier-step';

/**
 * The most events one notifier step takes in. A backlog (the notifier failing through a flood)
 * is taken a step of this many at a time, each marked sent before the next, so neither the
 * step's state (the ids it took in, about 10 bytes each compressed) nor its time grows with
 * the backlog.
 */
export const MAX_EVENTS_PER_STEP = 5_000;

/** Time a round keeps free before its deadline for one more step's commit, publish and marks. */
const STEP_MARGIN_MS = 10_000;
/**
 * Time a round keeps free before its deadline once it publishes: a publish SNS refuses costs
 * about a second of retries (one that hangs, more), then the sent messages are marked.
 */
const PUBLISH_MARGIN_MS = 10_000;

export interface NotifierRoundOptions {
  readonly config: Config;
  /** Where the pollers committed their events (deployed: the state table). */
  readonly events: OwedEvents;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
  readonly now: () => number;
  /** As `notifierStep`'s. @default 120000 */
  readonly owedGraceMs?: number;
  /**
   * Epoch ms by which the round must be over (the invocation's remaining time): no further
   * step starts within 10 s of it; the events left wait for the next round. @default none
   */
  readonly deadlineMs?: number;
  /** @default MAX_EVENTS_PER_STEP */
  readonly maxEventsPerStep?: number;
}

export interface NotifierRoundResult extends NotifierStepResult {
  /** Events the step had taken in that could not be marked sent: taken again, and skipped, next round. */
  readonly markSentFailed: readonly {
    readonly source: SourceName;
    /** How many events. */
    readonly events: number;
    readonly error: unknown;
  }[];
  /** Owed events left for the next round (the deadline came first). */
  readonly left: number;
  /** Steps this round ran. */
  readonly steps: number;
}

/**
 * One round of the deployed notifier (its minute, or a poller's commit seen on the table's
 * stream), Alertmanager's shape: the pollers decide alert events and commit them as owed; the
 * notifier alone turns them into messages. It reads every source's committed events and takes
 * them, oldest first, in notifier steps of at most `maxEventsPerStep` (events a step took in
 * before are skipped by their ids); once a step has committed its events, it marks them sent
 * in their sources before it publishes, and the next step forgets their ids. A round that
 * fails before a step commits leaves that step's events owed, taken by the next round; a mark
 * that fails leaves them owed too, and the next round skips and marks them (a step remembers
 * the ids it took in for an hour, `consumedRetentionMs`, and for as long as they are still
 * owed). Publishing stops 10 s before the deadline, leaving the rest owed with the same ids.
 * With no events the round is one step: the clock's tick.
 *
 * @throws what `notifierStep` throws, and the event store's read errors.
 */
export async function notifierRound(options: NotifierRoundOptions): Promise<NotifierRoundResult> {
  const owed = await Promise.all(
    SOURCES.map(async (source) => ({ source, events: await options.events.loadOwed(source) })),
  );
  const events: Notification[] = owed.flatMap((taken) => taken.events).sort(compareNotifications);
  const perStep = Math.max(1, options.maxEventsPerStep ?? MAX_EVENTS_PER_STEP);
  const results: NotifierStepResult[] = [];
  const markSentFailed: { source: SourceName; events: number; error: unknown }[] = [];
  const forget = new Set<string>();
  const stillOwed = new Set(events.map((event) => event.id));
  const markSent = async (chunk: readonly Notification[]) => {
    const bySource = new Map<SourceName, string[]>();
    for (const event of chunk) {
      const ids = bySource.get(event.source) ?? [];
      ids.push(event.id);
      bySource.set(event.source, ids);
    }
    await Promise.all(
      [...bySource].map(async ([source, ids]) => {
        try {
          await options.events.markSent(source, ids);
          for (const id of ids) forget.add(id);
        } catch (error) {
          markSentFailed.push({ source, events: ids.length, error });
        }
      }),
    );
  };
  let next = 0;
  do {
    const chunk = events.slice(next, next + perStep);
    const result = await notifierStep({
      config: options.config,
      store: options.store,
      publisher: options.publisher,
      now: options.now,
      events: chunk,
      forget,
      stillOwed,
      // Taken in once the step committed: marked sent before it publishes, so an SNS outage
      // that takes the rest of the invocation leaves messages owed, never events.
      onCommitted: () => markSent(chunk),
      ...(options.deadlineMs === undefined
        ? {}
        : { publishUntilMs: options.deadlineMs - PUBLISH_MARGIN_MS }),
      ...(options.owedGraceMs === undefined ? {} : { owedGraceMs: options.owedGraceMs }),
    });
    results.push(result);
    next += chunk.length;
  } while (
    next < events.length &&
    (options.deadlineMs === undefined || options.now() < options.deadlineMs - STEP_MARGIN_MS)
  );
  return { ...merge(results), markSentFailed, left: events.length - next, steps: results.length };
}

/** The steps of one round as one result: what each decided, published and took in. */
function merge(results: readonly NotifierStepResult[]): NotifierStepResult {
  const last = results.at(-1);
  if (last === undefined) throw new Error('a notifier round runs at least one step');
  const published = results.flatMap((r) => r.published);
  const done = new Set(published);
  return {
    decided: results.flatMap((r) => r.decided),
    published,
    // What a later step of the round published is not left unpublished.
    unpublished: [...new Set(results.flatMap((r) => r.unpublished))].filter((id) => !done.has(id)),
    undeliverable: results.flatMap((r) => r.undeliverable),
    taken: results.reduce((sum, r) => sum + r.taken, 0),
    takenEvents: results.flatMap((r) => r.takenEvents),
    skipped: results.reduce((sum, r) => sum + r.skipped, 0),
    nextDueAtMs: last.nextDueAtMs,
    heldDueAtMs: last.heldDueAtMs,
    released: results.some((r) => r.released),
    unfollowed: results.flatMap((r) => r.unfollowed),
    unanswered: results.reduce((sum, r) => sum + r.unanswered, 0),
  };
}
