import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { type OrphanLeft, writeSent } from './dynamodb-commit';
import { parallel } from './dynamodb-requests';
import { ATTR } from './dynamodb-state-items';

/*
 * Tombstones of the notifier's sent messages. Deleting a sent message's item is not enough: the
 * first attempt of the write that made it owed can reach DynamoDB late (its answer timed out,
 * the SDK's retry succeeded, the step committed, published and marked it sent), and an
 * unconditional write would then create the item again, owed under a committed id, to be
 * published a second time. So a sent message's item is replaced by a tombstone (its keys,
 * `sentAt`, `expiresAt`), and owed writes of messages are conditional on there being none
 * (`putOwed`'s `unlessSent`).
 *
 * A request the SDK gave up on cannot reach DynamoDB later than its connection lives (minutes):
 * a tombstone is kept an hour, then deleted by the next load (DynamoDB's TTL deletes it too, but
 * only within days, and every load of the partition reads what is still there).
 */

type Item = Record<string, AttributeValue>;

/** How long a sent message's tombstone is kept. */
export const TOMBSTONE_MS = 3_600_000;

/**
 * Replaces each item by its tombstone, whether or not it is still there (another step may have
 * marked it already: a tombstone again is harmless), in batches as `writeSent`.
 */
export function writeTombstones(
  client: DynamoDBClient,
  table: string,
  keys: readonly Item[],
  nowMs: number,
  sleep: (ms: number) => Promise<void>,
  what: string,
): Promise<void> {
  const tombstone = {
    [ATTR.sentAt]: { N: String(nowMs) },
    expiresAt: { N: String(Math.floor((nowMs + TOMBSTONE_MS) / 1000)) },
  };
  const requests = keys.map((key) => ({ PutRequest: { Item: { ...key, ...tombstone } } }));
  return writeSent(client, table, requests, sleep, what);
}

/**
 * Deletes the tombstones past their hour, each only if it is still the one read (another step
 * may have marked the message again since). Best effort, as orphans: one left is only read
 * again, and `onLeft` hears why.
 */
export async function deleteExpiredTombstones(
  client: DynamoDBClient,
  table: string,
  tombstones: readonly Item[],
  nowMs: number,
  onLeft?: OrphanLeft,
): Promise<void> {
  const expired = tombstones.filter(
    (item) => Number(item[ATTR.sentAt]?.N ?? '0') + TOMBSTONE_MS <= nowMs,
  );
  await parallel(expired, async (item) => {
    try {
      await client.send(
        new DeleteItemCommand({
          TableName: table,
          Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue },
          ConditionExpression: '#sentAt = :sentAt',
          ExpressionAttributeNames: { '#sentAt': ATTR.sentAt },
          ExpressionAttributeValues: { ':sentAt': item[ATTR.sentAt] as AttributeValue },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) onLeft?.(item.sk?.S ?? '', error);
    }
  });
}
