import type { Message, NotifierState } from '../notifier/types';

/** The notifier's stored state with its revision, what it recently took in, and what it owes. */
export interface StoredNotifier {
  readonly state: NotifierState | undefined;
  /** 0 when nothing is stored yet. */
  readonly revision: number;
  /**
   * Ids of the events recent steps took in, with when (epoch ms): an event handed over again
   * (taken in, but not marked sent where it was committed) is skipped, not told twice.
   */
  readonly consumed: Readonly<Record<string, number>>;
  /** Messages committed and not yet confirmed published (the outbox). */
  readonly owed: readonly Message[];
}

/** What a notifier step commits. */
export interface NotifierCommit {
  readonly state: NotifierState;
  /** Replaces the stored map (pruned of what is old enough to forget). */
  readonly consumed: Readonly<Record<string, number>>;
  /** Added to what is owed. */
  readonly owed: readonly Message[];
}

/** The notifier's state. Adapters: DynamoDB (deployed), file and memory (local, tests). */
export interface NotifierStore {
  loadNotifier(): Promise<StoredNotifier>;
  /**
   * Writes the commit only if the stored revision is still `expectedRevision`; returns the new
   * revision. Throws `NotifierConflictError` otherwise.
   */
  commitNotifier(expectedRevision: number, next: NotifierCommit): Promise<number>;
  /** Removes published messages (by id) from what is owed. Idempotent. */
  markMessagesSent(ids: readonly string[]): Promise<void>;
}

/** Sends messages to their channels. Adapters: SNS (deployed), stdout/memory (local). */
export interface MessagePublisher {
  /**
   * Resolves with the ids of the messages their channel took; the rest stay owed, but for
   * `undeliverable`: messages no try can deliver (their channel has no topic: a deploy removed
   * or renamed it), which the step counts, reports and stops owing (contract 6.1 rule 8).
   */
  publish(messages: readonly Message[]): Promise<PublishResult>;
}

export interface PublishResult {
  readonly delivered: readonly string[];
  /** @default none */
  readonly undeliverable?: readonly string[];
}
