import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Message, NotifierState } from '../../shared/notifier/types';
import {
  NotifierConflictError,
  NotifierStateTooLargeError,
  StateStoreError,
} from '../../shared/ports/errors';
import type { NotifierCommit, NotifierStore, StoredNotifier } from '../../shared/ports/notifier';
import {
  deleteOrphans,
  liveCommits,
  type OrphanLeft,
  putOwed,
  readPartition,
  writeState,
} from './dynamodb-commit';
import { NOTIFIER_PARTITION, parallel } from './dynamodb-requests';
import { deleteExpiredTombstones, writeTombstones } from './dynamodb-sent';
import { ATTR, MAX_STATE_ITEM_BYTES, newCommitId, STATE_SK } from './dynamodb-state-items';

const DAY_MS = 86_400_000;
/** Sort keys of owed messages: `message#<message id>` (ids are 32 hex characters). */
const MESSAGE_PREFIX = 'message#';
/** Owed item: the message JSON (String). */
const MESSAGE_ATTR = 'message';

interface StoredBody {
  readonly state: NotifierState;
  readonly consumed: Readonly<Record<string, number>>;
}

const stateKey = (): Record<string, AttributeValue> => ({
  pk: { S: NOTIFIER_PARTITION },
  sk: { S: STATE_SK },
});

function messageKey(id: string): Record<string, AttributeValue> {
  // Message ids are short hashes; anything else is keyed by its own hash, never too long.
  const safe = /^[0-9a-f]{1,64}$/.test(id) ? id : createHash('sha256').update(id).digest('hex');
  return { pk: { S: NOTIFIER_PARTITION }, sk: { S: `${MESSAGE_PREFIX}${safe}` } };
}

/**
 * The state item's body as the store writes it: gzip JSON of the state and the ids of the
 * events taken in, refused when it and the commit ids the item also carries pass its limit.
 * Exported so that tests hold a state to the item's own measure.
 *
 * @throws NotifierStateTooLargeError over `MAX_STATE_ITEM_BYTES`.
 */
export function encodeNotifierItem(
  state: NotifierState,
  consumed: Readonly<Record<string, number>>,
  committed: readonly string[] = [],
): Buffer {
  const bytes = gzipSync(JSON.stringify({ state, consumed }));
  const size = bytes.byteLength + committed.reduce((sum, id) => sum + id.length, 0);
  if (size > MAX_STATE_ITEM_BYTES) {
    throw new NotifierStateTooLargeError(size, MAX_STATE_ITEM_BYTES);
  }
  return bytes;
}

export interface DynamoNotifierStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items not written for this long expire. @default 30 days */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits between retries of unprocessed batch deletes. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of a crashed commit's leftover item a load could not delete (left to its TTL). */
  readonly onOrphanLeft?: OrphanLeft;
}

/**
 * The deployed `NotifierStore`, in the state table beside the sources (partition
 * `notifier`): the state item (`sk` = `state`: gzip JSON of the notifier state and the ids of
 * the events it took in, `revision`, `committed`, `writtenBy`, `expiresAt`) and one item per
 * owed message (`sk` = `message#<id>`: the message JSON, the `commits` that wrote it), which
 * becomes a tombstone once sent (`dynamodb-sent.ts`: `sentAt`, kept an hour).
 *
 * The same commit protocol as the pollers' `DynamoStateStore` (`dynamodb-commit.ts`): owed
 * messages commit atomically with the state, an orphan is deleted only if no commit in flight
 * wrote it again, and a commit whose answer was lost but which was applied is its own.
 */
export class DynamoNotifierStore implements NotifierStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onOrphanLeft: OrphanLeft | undefined;

  constructor(options: DynamoNotifierStoreOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#ttlMs = options.ttlMs ?? 30 * DAY_MS;
    this.#now = options.now ?? (() => Date.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#onOrphanLeft = options.onOrphanLeft;
  }

  async loadNotifier(): Promise<StoredNotifier> {
    const read = await readPartition(this.#client, this.#table, NOTIFIER_PARTITION);
    if (read.stateItem === undefined)
      return { state: undefined, revision: 0, consumed: {}, owed: [] };
    let body: StoredBody;
    let owed: Message[];
    try {
      body = JSON.parse(
        gunzipSync(read.stateItem[ATTR.state]?.B ?? new Uint8Array()).toString('utf8'),
      );
      owed = read.owed.map((item) => JSON.parse(item[MESSAGE_ATTR]?.S ?? '') as Message);
    } catch (error) {
      throw new StateStoreError(`the notifier state in ${this.#table} is unreadable`, {
        cause: error,
      });
    }
    await Promise.all([
      deleteOrphans(this.#client, this.#table, read.orphans, this.#onOrphanLeft),
      deleteExpiredTombstones(
        this.#client,
        this.#table,
        read.tombstones,
        this.#now(),
        this.#onOrphanLeft,
      ),
    ]);
    owed.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1));
    return { state: body.state, revision: read.revision, consumed: body.consumed, owed };
  }

  async commitNotifier(expectedRevision: number, next: NotifierCommit): Promise<number> {
    const commitId = newCommitId(expectedRevision + 1);
    const expiresAt: AttributeValue = { N: String(Math.floor((this.#now() + this.#ttlMs) / 1000)) };
    let committed: string[] | undefined;
    if (next.owed.length > 0) {
      const live = await liveCommits(
        this.#client,
        this.#table,
        NOTIFIER_PARTITION,
        expectedRevision,
        () => new NotifierConflictError(expectedRevision),
      );
      committed = [...live, commitId];
    }
    // Checked before any owed item is written, so a state too large leaves no orphans.
    const bytes = encodeNotifierItem(next.state, next.consumed, committed ?? []);
    await parallel(next.owed, (message) =>
      putOwed(
        this.#client,
        this.#table,
        {
          key: messageKey(message.id),
          attribute: MESSAGE_ATTR,
          json: JSON.stringify(message),
          what: `message ${message.id}`,
        },
        commitId,
        expiresAt,
        // A message already sent (a late first attempt of this write, or the same message
        // decided again) stays sent: not owed a second time.
        true,
      ),
    );
    return writeState(this.#client, this.#table, {
      key: stateKey(),
      expectedRevision,
      commitId,
      state: bytes,
      ...(committed === undefined ? {} : { committed }),
      expiresAt,
      writtenAtMs: this.#now(),
      conflict: (cause) => new NotifierConflictError(expectedRevision, { cause }),
      failure: (cause) =>
        new StateStoreError(`cannot write the notifier state to ${this.#table}`, { cause }),
    });
  }

  async markMessagesSent(ids: readonly string[]): Promise<void> {
    const keys = [...new Set(ids)].map(messageKey);
    // Tombstones, not deletes: a late owed write of a message cannot make it owed again.
    await writeTombstones(
      this.#client,
      this.#table,
      keys,
      this.#now(),
      this.#sleep,
      'messages of the notifier',
    );
  }
}
