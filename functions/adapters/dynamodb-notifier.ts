import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Message, NotifierState } from '../../shared/notifier/types';
import { NotifierConflictError, StateStoreError } from '../../shared/ports/errors';
import type { NotifierCommit, NotifierStore, StoredNotifier } from '../../shared/ports/notifier';
import {
  attempt,
  BATCH_WRITE_MAX,
  deleteBatch,
  NOTIFIER_PARTITION,
  parallel,
  queryPartition,
} from './dynamodb-requests';
import {
  ATTR,
  commitRevision,
  MAX_STATE_ITEM_BYTES,
  newCommitId,
  STATE_SK,
} from './dynamodb-state-items';

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

export interface DynamoNotifierStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items not written for this long expire. @default 30 days */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Waits between retries of unprocessed batch deletes. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The deployed `NotifierStore`, in the state table beside the sources (partition
 * `notifier`): the state item (`sk` = `state`: gzip JSON of the notifier state and the ids of
 * the events it took in, `revision`, `committed`, `writtenBy`, `expiresAt`) and one item per
 * owed message (`sk` = `message#<id>`: the message JSON, the `commits` that wrote it).
 *
 * The same commit protocol as the pollers' `DynamoStateStore`: owed items are written first,
 * each tagged with a fresh commit id, then the state item is updated conditional on the
 * revision, recording that id in `committed`; an owed item with no committed id (a lost race,
 * a crash before the update) is not owed, and `load` deletes it once the revision is past its
 * commit. A commit whose answer was lost but which was applied is recognised by `writtenBy`.
 */
export class DynamoNotifierStore implements NotifierStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: DynamoNotifierStoreOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#ttlMs = options.ttlMs ?? 30 * DAY_MS;
    this.#now = options.now ?? (() => Date.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async loadNotifier(): Promise<StoredNotifier> {
    const items = await queryPartition(this.#client, this.#table, NOTIFIER_PARTITION);
    const stateItem = items.find((item) => item.sk?.S === STATE_SK);
    if (stateItem === undefined) return { state: undefined, revision: 0, consumed: {}, owed: [] };
    const revision = Number(stateItem[ATTR.revision]?.N ?? '0');
    const committed = new Set(stateItem[ATTR.committed]?.SS ?? []);
    let body: StoredBody;
    const owed: Message[] = [];
    const dead: Record<string, AttributeValue>[] = [];
    try {
      body = JSON.parse(gunzipSync(stateItem[ATTR.state]?.B ?? new Uint8Array()).toString('utf8'));
      for (const item of items) {
        if (item === stateItem) continue;
        const commits = item[ATTR.commits]?.SS ?? [];
        if (commits.some((id) => committed.has(id))) {
          owed.push(JSON.parse(item[MESSAGE_ATTR]?.S ?? '') as Message);
        } else if (commits.every((id) => commitRevision(id) <= revision)) {
          dead.push({ pk: { S: NOTIFIER_PARTITION }, sk: { S: item.sk?.S ?? '' } });
        }
      }
    } catch (error) {
      throw new StateStoreError(`the notifier state in ${this.#table} is unreadable`, {
        cause: error,
      });
    }
    // Orphans are never owed: removing them is tidiness, left to the TTL when it fails.
    await this.#delete(dead).catch(() => undefined);
    owed.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1));
    return { state: body.state, revision, consumed: body.consumed, owed };
  }

  async commitNotifier(expectedRevision: number, next: NotifierCommit): Promise<number> {
    const revision = expectedRevision + 1;
    const commitId = newCommitId(revision);
    const expiresAt: AttributeValue = { N: String(Math.floor((this.#now() + this.#ttlMs) / 1000)) };
    const bytes = gzipSync(JSON.stringify({ state: next.state, consumed: next.consumed }));
    if (bytes.byteLength > MAX_STATE_ITEM_BYTES) {
      throw new StateStoreError(
        `the notifier state is ${bytes.byteLength} bytes compressed, over the ${MAX_STATE_ITEM_BYTES} a DynamoDB item may hold`,
      );
    }
    const names: Record<string, string> = {
      '#state': ATTR.state,
      '#revision': ATTR.revision,
      '#writtenAt': ATTR.writtenAt,
      '#writtenBy': ATTR.writtenBy,
    };
    const values: Record<string, AttributeValue> = {
      ':state': { B: bytes },
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
    if (next.owed.length > 0) {
      const live = await this.#liveCommits(expectedRevision);
      await parallel(next.owed, (message) => this.#putOwed(message, commitId, expiresAt));
      names['#committed'] = ATTR.committed;
      values[':committed'] = { SS: [...live, commitId] };
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
          Key: stateKey(),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // Applied, its answer lost, and the SDK's retry found our own revision: done.
        const item = error.Item;
        if (item?.[ATTR.revision]?.N === String(revision) && item[ATTR.writtenBy]?.S === commitId) {
          return revision;
        }
        throw new NotifierConflictError(expectedRevision, { cause: error });
      }
      throw new StateStoreError(`cannot write the notifier state to ${this.#table}`, {
        cause: error,
      });
    }
    return revision;
  }

  async markMessagesSent(ids: readonly string[]): Promise<void> {
    await this.#delete([...new Set(ids)].map(messageKey));
  }

  async #delete(keys: readonly Record<string, AttributeValue>[]): Promise<void> {
    const batches: Record<string, AttributeValue>[][] = [];
    for (let start = 0; start < keys.length; start += BATCH_WRITE_MAX) {
      batches.push(keys.slice(start, start + BATCH_WRITE_MAX));
    }
    await parallel(batches, (batch) =>
      deleteBatch(this.#client, this.#table, batch, this.#sleep, 'messages of the notifier'),
    );
  }

  /** The committed ids that still have an owed item; a stale revision is a conflict. */
  async #liveCommits(expectedRevision: number): Promise<string[]> {
    const items = await queryPartition(
      this.#client,
      this.#table,
      NOTIFIER_PARTITION,
      'sk, #revision, #committed, #commits',
      { '#revision': ATTR.revision, '#committed': ATTR.committed, '#commits': ATTR.commits },
    );
    const stateItem = items.find((item) => item.sk?.S === STATE_SK);
    if (Number(stateItem?.[ATTR.revision]?.N ?? '0') !== expectedRevision) {
      throw new NotifierConflictError(expectedRevision);
    }
    const referenced = new Set(items.flatMap((item) => item[ATTR.commits]?.SS ?? []));
    return (stateItem?.[ATTR.committed]?.SS ?? []).filter((id) => referenced.has(id));
  }

  async #putOwed(message: Message, commitId: string, expiresAt: AttributeValue): Promise<void> {
    await attempt(`cannot record message ${message.id} as owed`, () =>
      this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: messageKey(message.id),
          UpdateExpression: 'SET #message = :m, expiresAt = :expiresAt ADD #commits :c',
          ExpressionAttributeNames: { '#message': MESSAGE_ATTR, '#commits': ATTR.commits },
          ExpressionAttributeValues: {
            ':m': { S: JSON.stringify(message) },
            ':expiresAt': expiresAt,
            ':c': { SS: [commitId] },
          },
        }),
      ),
    );
  }
}
