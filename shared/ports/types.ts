import type { Notification, SourceState } from '../engine/types';
import type { SourceName } from '../types/config';

/**
 * A stored state with its optimistic-concurrency revision and the notifications recorded as
 * owed (committed with the state, not yet confirmed published).
 */
export interface StoredState {
  readonly state: SourceState | undefined;
  /** 0 when nothing is stored yet. */
  readonly revision: number;
  /** When the state was last written, epoch ms (by the store's clock), when the store knows. */
  readonly writtenAtMs?: number;
  readonly owed: readonly Notification[];
}

/** Alert state per source. Adapters: DynamoDB (deployed), file and memory (local, tests). */
export interface StateStore {
  load(source: SourceName): Promise<StoredState>;
  /**
   * Writes `next` and adds `owed` to what is owed, only if the stored revision is still
   * `expectedRevision`; returns the new revision. Throws `StateConflictError` otherwise.
   */
  commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number>;
  /** Removes delivered notifications (by id) from what is owed. Idempotent. */
  markSent(source: SourceName, ids: readonly string[]): Promise<void>;
  /**
   * Narrows an owed notification to the channels still owed (some of its channels took it), so
   * a later run publishes it to those only. Keeps only channels it already had; does nothing
   * when the notification is no longer owed (sent meanwhile). Idempotent.
   */
  narrowOwed(source: SourceName, id: string, channels: readonly string[]): Promise<void>;
}

/**
 * The pollers' committed alert events as the notifier takes them (deployed: the state table,
 * `DynamoStateStore`): it reads what is owed without the state, and marks what it took in.
 */
export interface OwedEvents {
  /** A source's committed notifications not yet marked sent, in `compareNotifications` order. */
  loadOwed(source: SourceName): Promise<readonly Notification[]>;
  /** As `StateStore.markSent`. */
  markSent(source: SourceName, ids: readonly string[]): Promise<void>;
}

/** A notification that some of its channels took and the others did not. */
export interface PartialDelivery {
  readonly id: string;
  /** The channels that did not take it: still owed. Never empty. */
  readonly channels: readonly string[];
}

/** What a publish achieved, per notification. */
export interface PublishOutcome {
  /** Ids every channel took: no longer owed. */
  readonly delivered: readonly string[];
  /** Notifications some channels took: owed to the rest only. */
  readonly partial: readonly PartialDelivery[];
}

/** Delivers notifications to their channels. Adapters: SNS (deployed), stdout/memory (local). */
export interface Publisher {
  /**
   * Resolves with what was delivered, per notification and channel; a notification in neither
   * list reached no channel and stays owed whole.
   */
  publish(notifications: readonly Notification[]): Promise<PublishOutcome>;
}

/**
 * Brings a scheduled run's later samples back at their slots, each its own invocation, so no
 * invocation is billed for waiting between samples. Adapter: an SQS delay queue (deployed).
 */
export interface SampleQueue {
  /**
   * Queues each sample to arrive when it is due (counted from `nowMs`). Resolves with the
   * samples it could not queue, for the caller to take itself; rejects when the queue could
   * not be reached (the caller then takes them all).
   */
  enqueue(samples: readonly QueuedSample[], nowMs: number): Promise<readonly QueuedSample[]>;
}

/**
 * A later sample of a scheduled run, handed to the sample queue to come back at its slot
 * (functions/samples.ts): one invocation per sample instead of one that waits between them.
 */
export interface QueuedSample {
  readonly source: SourceName;
  /** 0-based index among the run's `samples`; queued samples are 1 and up. */
  readonly sample: number;
  /** When the sample is due, epoch ms. */
  readonly dueAtMs: number;
}
