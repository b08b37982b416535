import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Notification, SourceState } from '../engine/types';
import type { Message, NotifierState } from '../notifier/types';
import * as z from '../schema/zod';
import type { SourceName } from '../types/config';
import { NotifierConflictError, StateConflictError, StateStoreError } from './errors';
import { withFileLock } from './file-lock';
import { narrowChannels } from './narrow';
import type { NotifierCommit, NotifierStore, StoredNotifier } from './notifier';
import type { StateStore, StoredState } from './types';

/*
 * The file is written only by this code, but it sits on a user's disk: check its outline at the
 * edge (so a hand-edited file fails with a clear message) and trust the engine's own shapes
 * inside it.
 */
const slotSchema = z.object({
  state: z.looseObject({ version: z.number(), source: z.string() }),
  revision: z.number().check(z.int(), z.positive()),
  writtenAt: z.optional(z.number()),
  owed: z.record(z.string(), z.looseObject({ id: z.string() })),
});
const notifierSchema = z.object({
  state: z.optional(
    z.looseObject({ version: z.number(), channels: z.record(z.string(), z.unknown()) }),
  ),
  revision: z.number().check(z.int(), z.positive()),
  consumed: z.record(z.string(), z.number()),
  owed: z.record(z.string(), z.looseObject({ id: z.string() })),
});
const fileSchema = z.object({
  version: z.literal(1),
  sources: z.record(z.string(), slotSchema),
  notifier: z.optional(notifierSchema),
});

interface Slot {
  state: SourceState;
  revision: number;
  /** Epoch ms of the last write; absent in files written before it was kept. */
  writtenAt?: number;
  owed: Record<string, Notification>;
}
interface NotifierSlot {
  state?: NotifierState;
  revision: number;
  consumed: Record<string, number>;
  owed: Record<string, Message>;
}
interface StateFile {
  version: 1;
  sources: Partial<Record<SourceName, Slot>>;
  /** The notifier's state, beside the pollers'. */
  notifier?: NotifierSlot;
}

/**
 * A `StateStore` in one JSON file (`telealert poll`). Writes go to a temporary file that is
 * renamed over the old one, so a crash leaves either the old or the new state, never half.
 * Operations of one process are serialised; every write (read, check the revision, write back)
 * also holds the file's cross-process lock (`withFileLock`), so processes sharing the file
 * (`poll`, `silence add`, `ack`) take turns: the one that read an older revision gets the
 * conflict error and redoes its change, and no write overwrites another's. Reads take no lock:
 * the rename makes every read see a whole file.
 */
export class FileStateStore implements StateStore, NotifierStore {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #now: () => number;

  /** `now`: the clock that stamps `writtenAtMs`. @default Date.now */
  constructor(
    readonly path: string,
    options: { readonly now?: () => number } = {},
  ) {
    this.#now = options.now ?? (() => Date.now());
  }

  async load(source: SourceName): Promise<StoredState> {
    return this.#serial(async () => {
      const slot = (await this.#read()).sources[source];
      if (slot === undefined) return { state: undefined, revision: 0, owed: [] };
      return {
        state: slot.state,
        revision: slot.revision,
        ...(slot.writtenAt === undefined ? {} : { writtenAtMs: slot.writtenAt }),
        owed: Object.values(slot.owed),
      };
    });
  }

  async commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number> {
    return this.#locked(async () => {
      const file = await this.#read();
      const slot = file.sources[source];
      if ((slot?.revision ?? 0) !== expectedRevision) {
        throw new StateConflictError(source, expectedRevision);
      }
      const merged = { ...slot?.owed };
      for (const n of owed) merged[n.id] = n;
      const revision = expectedRevision + 1;
      file.sources[source] = { state: next, revision, writtenAt: this.#now(), owed: merged };
      await this.#write(file);
      return revision;
    });
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    await this.#locked(async () => {
      const file = await this.#read();
      const slot = file.sources[source];
      if (slot === undefined || !ids.some((id) => id in slot.owed)) return;
      for (const id of ids) delete slot.owed[id];
      await this.#write(file);
    });
  }

  async narrowOwed(source: SourceName, id: string, channels: readonly string[]): Promise<void> {
    await this.#locked(async () => {
      const file = await this.#read();
      const owed = file.sources[source]?.owed;
      const notification = owed !== undefined && Object.hasOwn(owed, id) ? owed[id] : undefined;
      if (owed === undefined || notification === undefined) return;
      owed[id] = narrowChannels(notification, channels);
      await this.#write(file);
    });
  }

  async loadNotifier(): Promise<StoredNotifier> {
    return this.#serial(async () => {
      const slot = (await this.#read()).notifier;
      if (slot === undefined) return { state: undefined, revision: 0, consumed: {}, owed: [] };
      return {
        state: slot.state,
        revision: slot.revision,
        consumed: slot.consumed,
        owed: Object.values(slot.owed),
      };
    });
  }

  async commitNotifier(expectedRevision: number, next: NotifierCommit): Promise<number> {
    return this.#locked(async () => {
      const file = await this.#read();
      const slot = file.notifier;
      if ((slot?.revision ?? 0) !== expectedRevision) {
        throw new NotifierConflictError(expectedRevision);
      }
      const owed = { ...slot?.owed };
      for (const message of next.owed) owed[message.id] = message;
      const revision = expectedRevision + 1;
      file.notifier = { state: next.state, revision, consumed: { ...next.consumed }, owed };
      await this.#write(file);
      return revision;
    });
  }

  async markMessagesSent(ids: readonly string[]): Promise<void> {
    await this.#locked(async () => {
      const file = await this.#read();
      const owed = file.notifier?.owed;
      if (owed === undefined || !ids.some((id) => Object.hasOwn(owed, id))) return;
      for (const id of ids) delete owed[id];
      await this.#write(file);
    });
  }

  /** `#serial`, holding the file's lock too: for each read-check-write. */
  #locked<T>(task: () => Promise<T>): Promise<T> {
    return this.#serial(() => withFileLock(this.path, task));
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(task);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #read(): Promise<StateFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { version: 1, sources: {} };
      const reason =
        code === 'EISDIR'
          ? `the state file ${this.path} is a directory; name a file instead (telealert poll --state FILE)`
          : code === 'EACCES'
            ? `cannot read the state file ${this.path}: permission denied`
            : `cannot read the state file ${this.path} (${String(code ?? error)})`;
      throw new StateStoreError(reason, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new StateStoreError(
        `the state file ${this.path} is not JSON: delete it to start from a clean state`,
        { cause: error },
      );
    }
    const result = fileSchema.safeParse(parsed);
    if (!result.success) {
      throw new StateStoreError(
        `the state file ${this.path} is not a telealert state file: delete it to start from a clean state`,
        { cause: result.error },
      );
    }
    // The outline was checked above; the contents are the engine's own serialised values.
    return result.data as unknown as StateFile;
  }

  async #write(file: StateFile): Promise<void> {
    const temporary = `${this.path}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(temporary, `${JSON.stringify(file)}\n`, 'utf8');
      await rename(temporary, this.path);
    } catch (error) {
      throw new StateStoreError(`cannot write the state file ${this.path}`, { cause: error });
    }
  }
}
