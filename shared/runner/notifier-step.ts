import type { Notification } from '../engine/types';
import { decide, emptyNotifierState } from '../notifier/decide';
import type { Message, Outbound, UnfollowedAlert } from '../notifier/types';
import { NotifierConflictError, NotifierStateTooLargeError } from '../ports/errors';
import type { MessagePublisher, NotifierStore } from '../ports/notifier';
import type { Config } from '../types/config';
import { jsonEqual } from './json-equal';

const HOUR_MS = 3_600_000;
/** A lost race is retried this often before the step gives up (the next step tries again). */
const ATTEMPTS = 4;
/**
 * Owed messages younger than this are left to the step that decided them (it may still be
 * publishing them); older ones were left by a step that crashed. As a publishing poller's owed
 * events.
 */
const DEFAULT_OWED_GRACE_MS = 120_000;

/**
 * How long an event taken in is remembered, unless marked sent meanwhile (`forget`): past the
 * time its owner takes to try marking it sent again (deployed, the notifier's next round,
 * within a minute; locally, its poller's next run), with room: at least an hour. `tight`, when
 * the state is too large to store: three runs of the slowest poller, the least that still
 * covers a local poller that crashed before marking its events sent.
 */
export function consumedRetentionMs(config: Config, tight = false): number {
  const slowest = Math.max(config.sources.live_calls.everyMs, config.sources.payments.everyMs);
  return tight ? 3 * slowest : Math.max(HOUR_MS, 3 * slowest);
}

export interface NotifierStepOptions {
  readonly config: Config;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
  readonly now: () => number;
  /** Alert events handed over (the pollers' committed ones); none for a clock's tick. */
  readonly events?: readonly Notification[];
  /** @default 120000 */
  readonly owedGraceMs?: number;
  /**
   * Ids of events taken in before that are marked sent where they were committed, so no one
   * can hand them over again: no longer remembered (`consumed` stays bounded by what is in
   * flight, not by a backlog's size).
   */
  readonly forget?: ReadonlySet<string>;
  /**
   * Ids of events still owed where they were committed (not marked sent yet): remembered
   * whatever their age, so an event handed over again after an outage of any length (marks
   * failing for hours) is skipped, not told again under a new message.
   */
  readonly stillOwed?: ReadonlySet<string>;
  /**
   * Called once the step's events are the notifier's (committed, or taken in before), before it
   * publishes: the deployed round marks them sent there, so publishing, however long SNS
   * refuses, cannot keep them owed.
   */
  readonly onCommitted?: () => Promise<void>;
  /**
   * Epoch ms past which no further message is published (the invocation's end, less a margin):
   * the rest stays owed, for the next step, with the same ids. @default none
   */
  readonly publishUntilMs?: number;
}

export interface NotifierStepResult {
  /** Messages this step decided (each also published, unless `unpublished` names it). */
  readonly decided: readonly Outbound[];
  /** Ids of owed messages (this step's and earlier ones') the publisher took. */
  readonly published: readonly string[];
  /** Owed messages this step tried and could not publish (the next step tries again). */
  readonly unpublished: readonly string[];
  /**
   * Owed messages no try can deliver (their channel has no topic, contract 6.1 rule 8): no
   * longer owed, whole here so the caller can count, alarm and log them.
   */
  readonly undeliverable: readonly Message[];
  /** Events taken in; events seen before are skipped and not counted. */
  readonly taken: number;
  /** The events counted in `taken`, as handed over. */
  readonly takenEvents: readonly Notification[];
  readonly skipped: number;
  readonly nextDueAtMs: number | undefined;
  /** `nextDueAtMs` without rotations' handoffs, which come forever (`Decision.heldDueAtMs`). */
  readonly heldDueAtMs: number | undefined;
  /**
   * The state kept too much to be stored, so this step told everything it kept at once (held
   * groups, the active-hours digest before its window, the SMS the cap held).
   */
  readonly released: boolean;
  /**
   * Firings told but not followed for acknowledgement and escalation (more firing alerts than
   * the notifier follows), and followed alerts a more severe one displaced.
   */
  readonly unfollowed: readonly UnfollowedAlert[];
  /**
   * Calls to `ack.did` that acknowledged but were not confirmed: their caller had a
   * confirmation less than 10 minutes before (contract 6.1 rule 7).
   */
  readonly unanswered: number;
}

/**
 * One notifier step (the outbox pattern): load the notifier's state, decide on the events not
 * taken in before, commit the next state with the events recorded as taken and the messages
 * as owed, conditional on the revision (a lost race decides again from the winner's state),
 * then publish what it decided and what an earlier step left owed (older than the grace
 * period, so a concurrent step's fresh messages go once), and mark what went out. A message the
 * publisher says no try can deliver (its channel has no topic) is no longer owed: it is
 * returned in `undeliverable` for the caller to count and alarm on (contract 6.1 rule 8). A crash after the commit leaves the
 * messages owed, published by the next step with the same ids; a crash before it leaves the
 * events owed where the pollers committed them, handed over again. The deployed notifier calls it with the events
 * the pollers committed (`notifier-round.ts`), the local pollers after their commit, and a
 * clock's tick with none.
 *
 * A state too large to store (`NotifierStateTooLargeError`: more alerts kept than the item
 * holds) is not a step that fails until someone acts: the step decides again releasing what it
 * kept (`decide`'s `release`), so the people are told early rather than not at all, and
 * remembering the events it took in for the least time that is safe (`consumedRetentionMs`).
 *
 * @throws NotifierConflictError after repeated lost races; the store's errors as they are.
 */
export async function notifierStep(options: NotifierStepOptions): Promise<NotifierStepResult> {
  const { config, store, publisher, now } = options;
  const events = options.events ?? [];
  let committed:
    | {
        readonly decided: readonly Outbound[];
        readonly owed: readonly Message[];
        readonly taken: readonly Notification[];
        readonly nextDueAtMs: number | undefined;
        readonly heldDueAtMs: number | undefined;
        readonly unfollowed: readonly UnfollowedAlert[];
        readonly unanswered: number;
      }
    | undefined;
  let lastConflict: NotifierConflictError | undefined;
  let release = false;
  for (let attempt = 0; attempt < ATTEMPTS && committed === undefined; attempt += 1) {
    const stored = await store.loadNotifier();
    const nowMs = now();
    const consumed: Record<string, number> = {};
    const forgetBefore = nowMs - consumedRetentionMs(config, release);
    for (const [id, at] of Object.entries(stored.consumed)) {
      const remembered = at >= forgetBefore || options.stillOwed?.has(id) === true;
      if (remembered && !options.forget?.has(id)) consumed[id] = at;
    }
    const fresh: Notification[] = [];
    for (const event of events) {
      if (Object.hasOwn(consumed, event.id)) continue;
      consumed[event.id] = nowMs;
      fresh.push(event);
    }
    const decision = decide(config, stored.state, fresh, nowMs, [], { release });
    const unchanged =
      fresh.length === 0 &&
      decision.messages.length === 0 &&
      jsonEqual(decision.state, stored.state ?? emptyNotifierState());
    if (!unchanged) {
      try {
        await store.commitNotifier(stored.revision, {
          state: decision.state,
          consumed,
          owed: decision.messages.map((item) => item.message),
        });
      } catch (error) {
        if (error instanceof NotifierStateTooLargeError && !release) {
          release = true;
          // Not a lost race: deciding again to release takes none of the attempts races get.
          attempt -= 1;
          continue;
        }
        if (!(error instanceof NotifierConflictError)) throw error;
        lastConflict = error;
        continue;
      }
    }
    const graceMs = options.owedGraceMs ?? DEFAULT_OWED_GRACE_MS;
    const left = stored.owed.filter((message) => Date.parse(message.at) <= nowMs - graceMs);
    committed = {
      decided: decision.messages,
      owed: [...left, ...decision.messages.map((item) => item.message)],
      taken: fresh,
      nextDueAtMs: decision.nextDueAtMs,
      heldDueAtMs: decision.heldDueAtMs,
      unfollowed: decision.unfollowed,
      unanswered: decision.muted.filter((item) => item.reason === 'unanswered').length,
    };
  }
  if (committed === undefined) throw lastConflict ?? new NotifierConflictError(-1);

  await options.onCommitted?.();

  // One message at a time, so that the step stops in time however slowly each publish fails.
  const published: string[] = [];
  const undeliverable: Message[] = [];
  for (const message of committed.owed) {
    if (options.publishUntilMs !== undefined && now() >= options.publishUntilMs) break;
    try {
      const result = await publisher.publish([message]);
      published.push(...result.delivered);
      if (result.undeliverable?.includes(message.id)) undeliverable.push(message);
    } catch {
      // Still owed: the next step publishes it, with the same id.
    }
  }
  // What cannot be delivered is not owed any more: told by the caller, not retried forever.
  const dropped = undeliverable.map((message) => message.id);
  if (published.length > 0 || dropped.length > 0) {
    await store.markMessagesSent([...published, ...dropped]);
  }
  const done = new Set([...published, ...dropped]);
  return {
    decided: committed.decided,
    published,
    unpublished: committed.owed.filter((message) => !done.has(message.id)).map((m) => m.id),
    undeliverable,
    taken: committed.taken.length,
    takenEvents: committed.taken,
    skipped: events.length - committed.taken.length,
    nextDueAtMs: committed.nextDueAtMs,
    heldDueAtMs: committed.heldDueAtMs,
    released: release,
    unfollowed: committed.unfollowed,
    unanswered: committed.unanswered,
  };
}
