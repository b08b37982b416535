import { compareNotifications } from '../engine/order';
import type { Notification } from '../engine/types';
import type { MessagePublisher, NotifierStore } from '../ports/notifier';
import type { OwedEvents } from '../ports/types';
import { type Config, SOURCES, type SourceName } from '../types/config';
import { type NotifierStepResult, notifierStep } from './notifier-step';

export interface NotifierRoundOptions {
  readonly config: Config;
  /** Where the pollers committed their events (deployed: the state table). */
  readonly events: OwedEvents;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
  readonly now: () => number;
  /** As `notifierStep`'s. @default 120000 */
  readonly owedGraceMs?: number;
}

export interface NotifierRoundResult extends NotifierStepResult {
  /** Events the step had taken in that could not be marked sent: taken again, and skipped, next round. */
  readonly markSentFailed: readonly { readonly source: SourceName; readonly error: unknown }[];
}

/**
 * One round of the deployed notifier (its minute, or a poller's commit seen on the table's
 * stream), Alertmanager's shape: the pollers decide alert events and commit them as owed; the
 * notifier alone turns them into messages. It reads every source's committed events, runs one
 * notifier step on them (oldest first; events it took in before are skipped by their ids), and,
 * once that step has committed them, marks them sent in their sources. A round that fails
 * before its step commits leaves the events owed, taken by the next round; a mark that fails
 * leaves them owed too, and the next round skips and marks them (the step remembers the ids it
 * took in for an hour, `consumedRetentionMs`).
 *
 * @throws what `notifierStep` throws, and the event store's read errors.
 */
export async function notifierRound(options: NotifierRoundOptions): Promise<NotifierRoundResult> {
  const owed = await Promise.all(
    SOURCES.map(async (source) => ({ source, events: await options.events.loadOwed(source) })),
  );
  const events: Notification[] = owed.flatMap((taken) => taken.events).sort(compareNotifications);
  const result = await notifierStep({
    config: options.config,
    store: options.store,
    publisher: options.publisher,
    now: options.now,
    events,
    ...(options.owedGraceMs === undefined ? {} : { owedGraceMs: options.owedGraceMs }),
  });
  const markSentFailed: { source: SourceName; error: unknown }[] = [];
  await Promise.all(
    owed
      .filter((taken) => taken.events.length > 0)
      .map(async ({ source, events: taken }) => {
        try {
          await options.events.markSent(
            source,
            taken.map((event) => event.id),
          );
        } catch (error) {
          markSentFailed.push({ source, error });
        }
      }),
  );
  return { ...result, markSentFailed };
}
