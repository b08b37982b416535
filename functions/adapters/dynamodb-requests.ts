import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandInput,
  type DynamoDBClient,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { StateStoreError } from '../../shared/ports/errors';
import type { SourceName } from '../../shared/types/config';

/** BatchWriteItem's limit. */
export const BATCH_WRITE_MAX = 25;
/** The partition of the notifier's state and owed messages, beside the sources'. */
export const NOTIFIER_PARTITION = 'notifier';
/** A partition of the state table: a source's, or the notifier's. */
export type Partition = SourceName | typeof NOTIFIER_PARTITION;
/** Owed items written or deleted at once: fast for a flood, gentle on on-demand capacity. */
const PARALLEL_WRITES = 16;
const BATCH_RETRIES = 5;

/** Runs one request; any failure becomes a `StateStoreError` saying what could not be done. */
export async function attempt<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StateStoreError(`${what}: ${reason}`, { cause: error });
  }
}

/** Every item of a source's partition (all pages), read consistently; also the notifier's. */
export async function queryPartition(
  client: DynamoDBClient,
  table: string,
  source: Partition,
  projection?: string,
  projectionNames?: Record<string, string>,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await attempt(`cannot read the state of ${source} from ${table}`, () =>
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: source } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
          ...(projection ? { ProjectionExpression: projection } : {}),
          ...(projectionNames ? { ExpressionAttributeNames: projectionNames } : {}),
        }),
      ),
    );
    // One at a time: a page of small items is thousands, too many to spread into push().
    for (const item of page.Items ?? []) items.push(item);
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** One request of a batch write: a delete, or a put of a whole item. */
export type BatchRequest = NonNullable<
  NonNullable<BatchWriteItemCommandInput['RequestItems']>[string]
>[number];

/**
 * Writes up to `BATCH_WRITE_MAX` requests (deletes, or puts of whole items), retrying with
 * backoff what DynamoDB leaves unprocessed; `what` names the items in errors ("notifications of
 * live_calls"). Every use of it marks items sent.
 */
export async function writeBatch(
  client: DynamoDBClient,
  table: string,
  batch: readonly BatchRequest[],
  sleep: (ms: number) => Promise<void>,
  what: string,
): Promise<void> {
  let requests = [...batch];
  for (let round = 0; requests.length > 0; round += 1) {
    if (round > BATCH_RETRIES) {
      throw new StateStoreError(
        `cannot mark ${requests.length} ${what} as sent: DynamoDB left them unprocessed`,
      );
    }
    if (round > 0) await sleep(50 * 2 ** round);
    const { UnprocessedItems } = await attempt(`cannot mark ${what} as sent`, () =>
      client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } })),
    );
    requests = UnprocessedItems?.[table] ?? [];
  }
}

/** Runs `task` over `items`, at most `PARALLEL_WRITES` at a time; rejects with the first error. */
export async function parallel<T>(
  items: readonly T[],
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, items.length) }, worker));
}
