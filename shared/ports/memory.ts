import type { SourceName } from '../config/types';
import type { Notification, SourceState } from '../engine/types';
import { StateConflictError } from './errors';
import type { Publisher, StateStore, StoredState, TokenSource } from './types';

interface Slot {
  state: SourceState;
  revision: number;
  owed: Map<string, Notification>;
}

/**
 * A `StateStore` in memory, for tests and the demo. Values are cloned on the way in and out,
 * so a caller mutating what it got back cannot change what is stored.
 */
export class MemoryStateStore implements StateStore {
  readonly #slots = new Map<SourceName, Slot>();

  async load(source: SourceName): Promise<StoredState> {
    const slot = this.#slots.get(source);
    if (slot === undefined) return { state: undefined, revision: 0, owed: [] };
    return structuredClone({
      state: slot.state,
      revision: slot.revision,
      owed: [...slot.owed.values()],
    });
  }

  async commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number> {
    const slot = this.#slots.get(source);
    if ((slot?.revision ?? 0) !== expectedRevision) {
      throw new StateConflictError(source, expectedRevision);
    }
    const merged = new Map(slot?.owed);
    for (const n of owed) merged.set(n.id, structuredClone(n));
    const revision = expectedRevision + 1;
    this.#slots.set(source, { state: structuredClone(next), revision, owed: merged });
    return revision;
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    const slot = this.#slots.get(source);
    for (const id of ids) slot?.owed.delete(id);
  }
}

/** A `Publisher` that keeps what it was given, for tests and the demo. */
export class MemoryPublisher implements Publisher {
  readonly published: Notification[] = [];

  async publish(notifications: readonly Notification[]): Promise<readonly string[]> {
    this.published.push(...notifications);
    return notifications.map((n) => n.id);
  }
}

/** A fixed `TokenSource`; `invalidate` has nothing to refetch. */
export class StaticTokenSource implements TokenSource {
  constructor(private readonly token: string) {}

  async get(): Promise<string> {
    return this.token;
  }

  invalidate(): void {}
}
