import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { SourceName } from '../../shared/config/types';
import type { Notification, SourceState } from '../../shared/engine/types';
import { StateConflictError, StateStoreError } from '../../shared/ports/errors';
import { narrowChannels } from '../../shared/ports/narrow';
import type { StateStore, StoredState } from '../../shared/ports/types';
import {
  attempt,
  BATCH_WRITE_MAX,
  deleteBatch,
  parallel,
  queryPartition,
} from './dynamodb-requests';
import {
  ATTR,
  commitRevision,
  compareOwed,
  decodeOwed,
  decodeState,
  encodeState,
  newCommitId,
  type OwedItem,
  owedKey,
  STATE_SK,
  stateKey,
} from './dynamodb-state-items';

const DAY_MS = 86_400_000;

export interface DynamoStateStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items not written for this long expire (a source removed, an owed item never sent). @default 30 days */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits between retries of unprocessed batch deletes. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The deployed `StateStore`. Per source (partition `pk`): one state item (`sk` = `state`) with
 * the state as gzip-compressed JSON, its `revision`, the `committed` commit ids and `expiresAt`;
 * and one item per owed notification (`sk` = `owed#<notification id>`) with the notification
 * JSON, the `commits` that wrote it and its own `expiresAt`.
 *
 * A commit with owed notifications gets a fresh commit id. It first writes its owed items, each
 * adding that id to its `commits` set (a set, so two racing commits of the same notification
 * merge rather than overwrite), then updates the state item conditional on the revision,
 * recording the id in `committed`. Only owed items with a committed id are owed: the items of a
 * commit that lost the race or crashed before its state update are orphans, ignored by `load`
 * and deleted by it once the revision has moved past theirs (before that, the commit may still
 * be in flight). So any number of owed notifications commit atomically with the state, with
 * nothing lost and nothing sent twice. `committed` is pruned at each such commit to the ids that
 * still have an owed item. Every commit, with owed notifications or not, records its id as
 * `writtenBy`: when the update was applied but its answer lost, the SDK's retry fails the
 * revision check, and the item it returns (`ALL_OLD`) shows the commit's own id, so the commit
 * succeeded rather than lost a race. `markSent` deletes owed items; `narrowOwed` rewrites one's
 * notification in place (commits kept) when only some of its channels took it.
 *
 * @throws StateTooLargeError from `commit` when the compressed state exceeds ~350 KB.
 */
export class DynamoStateStore implements StateStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: DynamoStateStoreOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#ttlMs = options.ttlMs ?? 30 * DAY_MS;
    this.#now = options.now ?? (() => Date.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async load(source: SourceName): Promise<StoredState> {
    const items = await queryPartition(this.#client, this.#table, source);
    const stateItem = items.find((item) => item.sk?.S === STATE_SK);
    if (stateItem === undefined) return { state: undefined, revision: 0, owed: [] };
    let state: SourceState;
    let owedItems: { key: Record<string, AttributeValue>; owed: OwedItem }[];
    try {
      state = decodeState(stateItem[ATTR.state]?.B ?? new Uint8Array());
      owedItems = items
        .filter((item) => item !== stateItem)
        .map((item) => ({
          key: { pk: { S: source }, sk: { S: item.sk?.S ?? '' } },
          owed: decodeOwed(item),
        }));
    } catch (error) {
      throw new StateStoreError(`the stored state of ${source} in ${this.#table} is unreadable`, {
        cause: error,
      });
    }
    const revision = Number(stateItem[ATTR.revision]?.N ?? '0');
    const committed = new Set(stateItem[ATTR.committed]?.SS ?? []);
    const owed: Notification[] = [];
    const dead: typeof owedItems = [];
    for (const item of owedItems) {
      if (item.owed.commits.some((id) => committed.has(id))) owed.push(item.owed.notification);
      // No commit of a revision already reached can succeed any more: a lost race or a crash.
      else if (item.owed.commits.every((id) => commitRevision(id) <= revision)) dead.push(item);
    }
    await parallel(dead, (item) => this.#deleteOrphan(item.key, item.owed.commits));
    const writtenAt = stateItem[ATTR.writtenAt]?.N;
    return {
      state,
      revision,
      ...(writtenAt === undefined ? {} : { writtenAtMs: Number(writtenAt) }),
      owed: owed.sort(compareOwed),
    };
  }

  async commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number> {
    const revision = expectedRevision + 1;
    const commitId = newCommitId(revision);
    const expiresAt: AttributeValue = { N: String(Math.floor((this.#now() + this.#ttlMs) / 1000)) };
    const names: Record<string, string> = {
      '#state': ATTR.state,
      '#revision': ATTR.revision,
      '#writtenAt': ATTR.writtenAt,
      '#writtenBy': ATTR.writtenBy,
    };
    const values: Record<string, AttributeValue> = {
      ':revision': { N: String(revision) },
      ':expiresAt': expiresAt,
      ':writtenAt': { N: String(this.#now()) },
      ':writtenBy': { S: commitId },
    };
    const sets = [
      '#state = :state',
      '#revision = :revision',
      'expiresAt = :expiresAt',
      '#writtenAt = :writtenAt',
      '#writtenBy = :writtenBy',
    ];
    if (owed.length === 0) {
      values[':state'] = { B: encodeState(source, next) };
    } else {
      const committed = [...(await this.#liveCommits(source, expectedRevision)), commitId];
      // Checked before any owed item is written, so a state too large leaves no orphans.
      values[':state'] = { B: encodeState(source, next, committed) };
      await parallel(owed, (n) => this.#putOwed(source, n, commitId, expiresAt));
      names['#committed'] = ATTR.committed;
      values[':committed'] = { SS: committed };
      sets.push('#committed = :committed');
    }
    let condition = 'attribute_not_exists(pk)';
    if (expectedRevision > 0) {
      condition = '#revision = :expected';
      values[':expected'] = { N: String(expectedRevision) };
    }
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: stateKey(source),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          // The item as it stands when the check fails, to tell a lost race from our own write.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // The write was applied but its answer was lost (a reset, a 5xx after the write), and
        // the SDK's retry found the revision already moved, by this very commit: it is done.
        // Taking it for a lost race would evaluate the same poll again on top of itself.
        if (writtenBy(error.Item, revision) === commitId) return revision;
        throw new StateConflictError(source, expectedRevision, { cause: error });
      }
      throw new StateStoreError(`cannot write the state of ${source} to ${this.#table}`, {
        cause: error,
      });
    }
    return revision;
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    // A batch refuses the same key twice.
    const keys = [...new Set(ids)].map((id) => owedKey(source, id));
    const batches: Record<string, AttributeValue>[][] = [];
    for (let start = 0; start < keys.length; start += BATCH_WRITE_MAX) {
      batches.push(keys.slice(start, start + BATCH_WRITE_MAX));
    }
    await parallel(batches, (batch) =>
      deleteBatch(this.#client, this.#table, batch, this.#sleep, `notifications of ${source}`),
    );
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

  /**
   * The committed ids that still have an owed item, read with the revision: a stale revision is
   * a conflict found before anything is written.
   */
  async #liveCommits(source: SourceName, expectedRevision: number): Promise<string[]> {
    const items = await queryPartition(
      this.#client,
      this.#table,
      source,
      `sk, #revision, #committed, #commits`,
      {
        '#revision': ATTR.revision,
        '#committed': ATTR.committed,
        '#commits': ATTR.commits,
      },
    );
    const stateItem = items.find((item) => item.sk?.S === STATE_SK);
    if (Number(stateItem?.[ATTR.revision]?.N ?? '0') !== expectedRevision) {
      throw new StateConflictError(source, expectedRevision);
    }
    const referenced = new Set(items.flatMap((item) => item[ATTR.commits]?.SS ?? []));
    return (stateItem?.[ATTR.committed]?.SS ?? []).filter((id) => referenced.has(id));
  }

  async #putOwed(
    source: SourceName,
    n: Notification,
    commitId: string,
    expiresAt: AttributeValue,
  ): Promise<void> {
    await attempt(`cannot record notification ${n.id} of ${source} as owed`, () =>
      this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: owedKey(source, n.id),
          UpdateExpression: 'SET #notification = :n, expiresAt = :expiresAt ADD #commits :c',
          ExpressionAttributeNames: {
            '#notification': ATTR.notification,
            '#commits': ATTR.commits,
          },
          ExpressionAttributeValues: {
            ':n': { S: JSON.stringify(n) },
            ':expiresAt': expiresAt,
            ':c': { SS: [commitId] },
          },
        }),
      ),
    );
  }

  /**
   * Deletes an orphan unless it changed since it was read: the condition names the exact set
   * of commit ids seen, so an item deleted by another run and written again by a commit in
   * flight (same id, other commit) is left alone. Best effort: an orphan is never delivered,
   * so a failed delete (throttling, a timeout) only leaves it to the next load or to its TTL,
   * and must not fail the run.
   */
  async #deleteOrphan(
    key: Record<string, AttributeValue>,
    commits: readonly string[],
  ): Promise<void> {
    const names = commits.map((_, i) => `:c${i}`);
    try {
      await this.#client.send(
        new DeleteItemCommand({
          TableName: this.#table,
          Key: key,
          ConditionExpression: [
            'size(#commits) = :n',
            ...names.map((name) => `contains(#commits, ${name})`),
          ].join(' AND '),
          ExpressionAttributeNames: { '#commits': ATTR.commits },
          ExpressionAttributeValues: {
            ':n': { N: String(commits.length) },
            ...Object.fromEntries(commits.map((id, i) => [`:c${i}`, { S: id }])),
          },
        }),
      );
    } catch {
      // Left for the next load or the TTL (see above).
    }
  }
}

/** The commit that wrote a state item (as a failed condition check returned it), if at `revision`. */
function writtenBy(
  item: Record<string, AttributeValue> | undefined,
  revision: number,
): string | undefined {
  if (item?.[ATTR.revision]?.N !== String(revision)) return undefined;
  return item[ATTR.writtenBy]?.S;
}
