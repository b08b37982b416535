import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { SourceName } from '../../shared/config/types';
import type { Notification, SourceState } from '../../shared/engine/types';
import { StateConflictError, StateStoreError } from '../../shared/ports/errors';
import type { StateStore, StoredState } from '../../shared/ports/types';

const DAY_MS = 86_400_000;
/** Placeholders per update expression: keeps it well under DynamoDB's 4 KB expression limit. */
const MAX_PATHS_PER_UPDATE = 100;

export interface DynamoStateStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Items not written for this long expire (a source removed from the rules). @default 30 days */
  readonly ttlMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The deployed `StateStore`: one item per source (`pk` = source, `sk` = `state`) holding the
 * state as a JSON string, its `revision`, the TTL `expiresAt` and the owed notifications as a
 * map `owed` (id -> notification JSON).
 *
 * A commit is one `UpdateItem` conditional on the revision that also SETs each new
 * `owed.<id>` on its own path, and `markSent` REMOVEs single paths, so the two never overwrite
 * each other's changes: one item, one conditional write, no transaction needed.
 */
export class DynamoStateStore implements StateStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: DynamoStateStoreOptions) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#ttlMs = options.ttlMs ?? 30 * DAY_MS;
    this.#now = options.now ?? (() => Date.now());
  }

  async load(source: SourceName): Promise<StoredState> {
    const item = await this.#getItem(source);
    if (item === undefined) return { state: undefined, revision: 0, owed: [] };
    try {
      const owed = Object.values(item.owed?.M ?? {}).map(
        (value) => JSON.parse(value.S ?? '') as Notification,
      );
      return {
        state: JSON.parse(item.state?.S ?? '') as SourceState,
        revision: Number(item.revision?.N ?? '0'),
        owed,
      };
    } catch (error) {
      throw new StateStoreError(`the stored state of ${source} in ${this.#table} is unreadable`, {
        cause: error,
      });
    }
  }

  async commit(
    source: SourceName,
    expectedRevision: number,
    next: SourceState,
    owed: readonly Notification[],
  ): Promise<number> {
    const revision = expectedRevision + 1;
    const names: Record<string, string> = { '#state': 'state', '#revision': 'revision' };
    const values: Record<string, AttributeValue> = {
      ':state': { S: JSON.stringify(next) },
      ':revision': { N: String(revision) },
      ':expiresAt': { N: String(Math.floor((this.#now() + this.#ttlMs) / 1000)) },
    };
    const sets = ['#state = :state', '#revision = :revision', 'expiresAt = :expiresAt'];
    let condition: string;
    if (expectedRevision === 0) {
      // A new item: the whole map at once (a nested path needs the map to exist already).
      condition = 'attribute_not_exists(pk)';
      names['#owed'] = 'owed';
      values[':owed'] = { M: Object.fromEntries(owed.map((n) => [n.id, owedValue(n)])) };
      sets.push('#owed = :owed');
    } else {
      condition = '#revision = :expected';
      values[':expected'] = { N: String(expectedRevision) };
      // Named only when used: DynamoDB rejects unused expression attribute names.
      if (owed.length > 0) names['#owed'] = 'owed';
      if (owed.length <= MAX_PATHS_PER_UPDATE) {
        owed.forEach((n, i) => {
          names[`#o${i}`] = n.id;
          values[`:o${i}`] = owedValue(n);
          sets.push(`#owed.#o${i} = :o${i}`);
        });
      } else {
        // Too many paths for one expression: rewrite the whole map. A markSent landing between
        // the read and this write is undone, so that notification is sent again: a duplicate
        // in a rare flood, never a loss.
        const current = (await this.#getItem(source))?.owed?.M ?? {};
        const merged = { ...current, ...Object.fromEntries(owed.map((n) => [n.id, owedValue(n)])) };
        values[':owed'] = { M: merged };
        sets.push('#owed = :owed');
      }
    }
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#table,
          Key: key(source),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new StateConflictError(source, expectedRevision, { cause: error });
      }
      throw new StateStoreError(`cannot write the state of ${source} to ${this.#table}`, {
        cause: error,
      });
    }
    return revision;
  }

  async markSent(source: SourceName, ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += MAX_PATHS_PER_UPDATE) {
      const chunk = ids.slice(start, start + MAX_PATHS_PER_UPDATE);
      const names: Record<string, string> = { '#owed': 'owed' };
      chunk.forEach((id, i) => {
        names[`#o${i}`] = id;
      });
      try {
        await this.#client.send(
          new UpdateItemCommand({
            TableName: this.#table,
            Key: key(source),
            UpdateExpression: `REMOVE ${chunk.map((_, i) => `#owed.#o${i}`).join(', ')}`,
            // Without it, an UpdateItem on a missing item would create a stray one.
            ConditionExpression: 'attribute_exists(#owed)',
            ExpressionAttributeNames: names,
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return;
        throw new StateStoreError(`cannot mark notifications of ${source} as sent`, {
          cause: error,
        });
      }
    }
  }

  async #getItem(source: SourceName): Promise<Record<string, AttributeValue> | undefined> {
    try {
      const command = new GetItemCommand({
        TableName: this.#table,
        Key: key(source),
        ConsistentRead: true,
      });
      return (await this.#client.send(command)).Item;
    } catch (error) {
      throw new StateStoreError(`cannot read the state of ${source} from ${this.#table}`, {
        cause: error,
      });
    }
  }
}

function key(source: SourceName): Record<string, AttributeValue> {
  return { pk: { S: source }, sk: { S: 'state' } };
}

function owedValue(n: Notification): AttributeValue {
  return { S: JSON.stringify(n) };
}
