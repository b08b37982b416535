import type { TokenSource } from '../api/types';
import { compareNotifications } from '../engine/order';
import type { Notification, SourceState } from '../engine/types';
import type { Message } from '../notifier/types';
import type { SourceName } from '../types/config';
import { NotifierConflictError, StateConflictError } from './errors';
import { narrowChannels } from './narrow';
import type { MessagePublisher, NotifierCommit, NotifierStore, StoredNotifier } from './notifier';
import type { OwedEvents, Publisher, PublishOutcome, StateStore, StoredState } from './types';

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
export class MemoryStateStore implements StateStore, OwedEvents {
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

  async loadOwed(source: SourceName): Promise<readonly Notification[]> {
    const owed = this.#slots.get(source)?.owed;
    return structuredClone([...(owed?.values() ?? [])]).sort(compareNotifications);
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

/** A `NotifierStore` in memory, for tests and the demo; values cloned in and out. */
export class MemoryNotifierStore implements NotifierStore {
  #stored: StoredNotifier = { state: undefined, revision: 0, consumed: {}, owed: [] };

  async loadNotifier(): Promise<StoredNotifier> {
    return structuredClone(this.#stored);
  }

  async commitNotifier(expectedRevision: number, next: NotifierCommit): Promise<number> {
    if (this.#stored.revision !== expectedRevision)
      throw new NotifierConflictError(expectedRevision);
    const owed = new Map(this.#stored.owed.map((message) => [message.id, message]));
    for (const message of next.owed) owed.set(message.id, structuredClone(message));
    this.#stored = {
      state: structuredClone(next.state),
      revision: expectedRevision + 1,
      consumed: { ...next.consumed },
      owed: [...owed.values()],
    };
    return this.#stored.revision;
  }

  async markMessagesSent(ids: readonly string[]): Promise<void> {
    const sent = new Set(ids);
    this.#stored = {
      ...this.#stored,
      owed: this.#stored.owed.filter((message) => !sent.has(message.id)),
    };
  }
}

/** A `MessagePublisher` that keeps what it was given, for tests. */
export class MemoryMessagePublisher implements MessagePublisher {
  readonly published: Message[] = [];

  async publish(messages: readonly Message[]): Promise<{ delivered: readonly string[] }> {
    for (const message of messages) this.published.push(message);
    return { delivered: messages.map((message) => message.id) };
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
