import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { compareNotifications } from '../../shared/engine/order';
import type { Notification, SourceState } from '../../shared/engine/types';
import { StateConflictError, StateStoreError } from '../../shared/ports/errors';
import { narrowChannels } from '../../shared/ports/narrow';
import type { OwedEvents, StateStore, StoredState } from '../../shared/ports/types';
import type { SourceName } from '../../shared/types/config';
import {
  deleteKeys,
  deleteOrphans,
  liveCommits,
  type OrphanLeft,
  putOwed,
  readPartition,
  writeState,
} from './dynamodb-commit';
import { attempt, parallel } from './dynamodb-requests';
import {
  ATTR,
  decodeOwed,
  decodeState,
  encodeState,
  newCommitId,
  OWED_PREFIX,
  owedKey,
  stateKey,
} from './dynamodb-state-items';

const DAY_MS = 86_400_000;

/** What `readPartition` needs to tell owed items, and their notifications: not the state. */
const OWED_PROJECTION = {
  expression: 'sk, #revision, #committed, #commits, #notification',
  names: {
    '#revision': ATTR.revision,
    '#committed': ATTR.committed,
    '#commits': ATTR.commits,
    '#notification': ATTR.notification,
  },
};

export interface DynamoStateStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items not written for this long expire (a source removed, an owed item never sent). @default 30 days */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits between retries of unprocessed batch deletes. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of a crashed commit's leftover item a load could not delete (left to its TTL). */
  readonly onOrphanLeft?: OrphanLeft;
}

/**
 * The deployed `StateStore`. Per source (partition `pk`): one state item (`sk` = `state`) with
 * the state as gzip-compressed JSON, its `revision`, the `committed` commit ids and `expiresAt`;
 * and one item per owed notification (`sk` = `owed#<notification id>`) with the notification
 * JSON, the `commits` that wrote it and its own `expiresAt`.
 *
 * The commit protocol (`dynamodb-commit.ts`) makes any number of owed notifications commit
 * atomically with the state, nothing lost and nothing sent twice, and knows its own write when
 * the answer to it was lost. `markSent` deletes owed items; `narrowOwed` rewrites one's
 * notification in place (commits kept) when only some of its channels took it.
 *
 * @throws StateTooLargeError from `commit` when the compressed state exceeds ~350 KB.
 */
export class DynamoStateStore implements StateStore, OwedEvents {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onOrphanLeft: OrphanLeft | undefined;

  constructor(options: DynamoStateStoreOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#ttlMs = options.ttlMs ?? 30 * DAY_MS;
    this.#now = options.now ?? (() => Date.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#onOrphanLeft = options.onOrphanLeft;
  }

  async load(source: SourceName): Promise<StoredState> {
    const read = await readPartition(this.#client, this.#table, source);
    if (read.stateItem === undefined) return { state: undefined, revision: 0, owed: [] };
    let state: SourceState;
    let owed: Notification[];
    try {
      state = decodeState(read.stateItem[ATTR.state]?.B ?? new Uint8Array());
      owed = read.owed.map((item) => decodeOwed(item).notification);
    } catch (error) {
      throw new StateStoreError(`the stored state of ${source} in ${this.#table} is unreadable`, {
        cause: error,
      });
    }
    await deleteOrphans(this.#client, this.#table, read.orphans, this.#onOrphanLeft);
    const writtenAt = read.stateItem[ATTR.writtenAt]?.N;
    return {
      state,
      revision: read.revision,
      ...(writtenAt === undefined ? {} : { writtenAtMs: Number(writtenAt) }),
      owed: owed.sort(compareNotifications),
    };
  }

  /**
   * What the notifier takes: the committed owed notifications. A round runs every minute and
   * on every commit, mostly with nothing owed: one read of at most one owed item says so, and
   * only then is the partition read (its state item too, for `committed`: DynamoDB charges
   * that read by the whole item, projection or not; the projection keeps the compressed state
   * off the wire). Orphans are left to the pollers' loads, which delete them; a commit in
   * flight is not owed yet (its state update triggers the next look).
   */
  async loadOwed(source: SourceName): Promise<readonly Notification[]> {
    const { Count = 0 } = await attempt(`cannot read the owed events of ${source}`, () =>
      this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :owed)',
          ExpressionAttributeValues: { ':pk': { S: source }, ':owed': { S: OWED_PREFIX } },
          ConsistentRead: true,
          Limit: 1,
          Select: 'COUNT',
        }),
      ),
    );
    if (Count === 0) return [];
    const read = await readPartition(this.#client, this.#table, source, OWED_PROJECTION);
    try {
      return read.owed.map((item) => decodeOwed(item).notification).sort(compareNotifications);
    } catch (error) {
      throw new StateStoreError(
        `an owed notification of ${source} in ${this.#table} is unreadable`,
        {
          cause: error,
        },
      );
    }
  }

  async commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number> {
    const commitId = newCommitId(expectedRevision + 1);
    const expiresAt: AttributeValue = { N: String(Math.floor((this.#now() + this.#ttlMs) / 1000)) };
    let committed: string[] | undefined;
    if (owed.length > 0) {
      const live = await liveCommits(
        this.#client,
        this.#table,
        source,
        expectedRevision,
        () => new StateConflictError(source, expectedRevision),
      );
      committed = [...live, commitId];
    }
    // Checked before any owed item is written, so a state too large leaves no orphans.
    const state = encodeState(source, next, committed);
    await parallel(owed, (n) =>
      putOwed(
        this.#client,
        this.#table,
        {
          key: owedKey(source, n.id),
          attribute: ATTR.notification,
          json: JSON.stringify(n),
          what: `notification ${n.id} of ${source}`,
        },
        commitId,
        expiresAt,
      ),
    );
    return writeState(this.#client, this.#table, {
      key: stateKey(source),
      expectedRevision,
      commitId,
      state,
      ...(committed === undefined ? {} : { committed }),
      expiresAt,
      writtenAtMs: this.#now(),
      conflict: (cause) => new StateConflictError(source, expectedRevision, { cause }),
      failure: (cause) =>
        new StateStoreError(`cannot write the state of ${source} to ${this.#table}`, { cause }),
    });
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    // A batch refuses the same key twice.
    const keys = [...new Set(ids)].map((id) => owedKey(source, id));
    await deleteKeys(this.#client, this.#table, keys, this.#sleep, `notifications of ${source}`);
  }

  /**
   * Rewrites the owed item's notification with the narrowed channels, in place: its `commits`
   * (and so whether it counts as committed) are kept. The condition that the item still exists
   * keeps a notification another run marked sent meanwhile from coming back as an item.
   */
  async narrowOwed(source: SourceName, id: string, channels: readonly string[]): Promise<void> {
    const key = owedKey(source, id);
    // A Query on the one key rather than GetItem: the poller's role is granted Query already
    // (infra/permissions.ts), and this keeps the adapter's actions as they were.
    const { Items } = await attempt(`cannot read owed notification ${id} of ${source}`, () =>
      this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk AND sk = :sk',
          ExpressionAttributeValues: {
            ':pk': key.pk as AttributeValue,
            ':sk': key.sk as AttributeValue,
          },
          ConsistentRead: true,
        }),
      ),
    );
    const Item = Items?.[0];
    if (Item === undefined) return;
    let notification: Notification;
    try {
      notification = decodeOwed(Item).notification;
    } catch (error) {
      throw new StateStoreError(`owed notification ${id} of ${source} is unreadable`, {
        cause: error,
      });
    }
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: key,
          UpdateExpression: 'SET #notification = :n',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#notification': ATTR.notification },
          ExpressionAttributeValues: {
            ':n': { S: JSON.stringify(narrowChannels(notification, channels)) },
          },
        }),
      );
    } catch (error) {
      // Deleted between the read and the write: sent by another run, nothing left to narrow.
      if (error instanceof ConditionalCheckFailedException) return;
      const reason = error instanceof Error ? error.message : String(error);
      throw new StateStoreError(`cannot narrow owed notification ${id} of ${source}: ${reason}`, {
        cause: error,
      });
    }
  }
}
