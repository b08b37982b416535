import type { SourceName } from '../config/types';
import type { Notification, SourceState } from '../engine/types';
import { StateConflictError } from './errors';
import { narrowChannels } from './narrow';
import type { Publisher, PublishOutcome, StateStore, StoredState, TokenSource } from './types';

interface Slot {
  state: SourceState;
  revision: number;
  writtenAtMs: number;
  owed: Map<string, Notification>;
}

/**
 * A `StateStore` in memory, for tests and the demo. Values are cloned on the way in and out,
 * so a caller mutating what it got back cannot change what is stored.
 */
export class MemoryStateStore implements StateStore {
  readonly #slots = new Map<SourceName, Slot>();
  readonly #now: () => number;

  /** `now`: the clock that stamps `writtenAtMs`. @default Date.now */
  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? (() => Date.now());
  }

  async load(source: SourceName): Promise<StoredState> {
    const slot = this.#slots.get(source);
    if (slot === undefined) return { state: undefined, revision: 0, owed: [] };
    return structuredClone({
      state: slot.state,
      revision: slot.revision,
      writtenAtMs: slot.writtenAtMs,
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
    this.#slots.set(source, {
      state: structuredClone(next),
      revision,
      writtenAtMs: this.#now(),
      owed: merged,
    });
    return revision;
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    const slot = this.#slots.get(source);
    for (const id of ids) slot?.owed.delete(id);
  }

  async narrowOwed(source: SourceName, id: string, channels: readonly string[]): Promise<void> {
    const owed = this.#slots.get(source)?.owed;
    const notification = owed?.get(id);
    if (owed === undefined || notification === undefined) return;
    owed.set(id, narrowChannels(notification, channels));
  }
}

/** A `Publisher` that keeps what it was given, for tests and the demo. */
export class MemoryPublisher implements Publisher {
  readonly published: Notification[] = [];

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    // One at a time: spreading a huge batch into push() overflows the call stack.
    for (const notification of notifications) this.published.push(notification);
    return { delivered: notifications.map((n) => n.id), partial: [] };
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
