import type { SourceName } from '../config/types';
import type { Notification, SourceState } from '../engine/types';

/**
 * A stored state with its optimistic-concurrency revision and the notifications recorded as
 * owed (committed with the state, not yet confirmed published).
 */
export interface StoredState {
  readonly state: SourceState | undefined;
  /** 0 when nothing is stored yet. */
  readonly revision: number;
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
}

/** Delivers notifications to their channels. Adapters: SNS (deployed), stdout/memory (local). */
export interface Publisher {
  /** Resolves with the ids that were delivered; ids left out failed and stay owed. */
  publish(notifications: readonly Notification[]): Promise<readonly string[]>;
}

/** The bearer token. Adapters: SSM SecureString (deployed), environment variable (local). */
export interface TokenSource {
  get(): Promise<string>;
  /** The API rejected the token: the next `get` must fetch it afresh. */
  invalidate(): void;
}
