import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { StateStoreError } from '../../shared/ports/errors';
import {
  BATCH_WRITE_MAX,
  type BatchRequest,
  type Partition,
  parallel,
  queryPartition,
  writeBatch,
} from './dynamodb-requests';
import { ATTR, commitRevision, STATE_SK } from './dynamodb-state-items';

/*
 * The commit protocol both stores share, on one partition of the state table (a source's, or
 * the notifier's): one state item and one item per owed delivery.
 *
 * A commit with owed items gets a fresh commit id. It first writes its owed items, each adding
 * that id to its `commits` set (a set, so two racing commits of the same item merge rather than
 * overwrite), then updates the state item conditional on the revision, recording the id in
 * `committed`. Only owed items with a committed id are owed: the items of a commit that lost the
 * race or crashed before its state update are orphans, ignored by a read and deleted by it once
 * the revision has moved past theirs (before that, the commit may still be in flight). So any
 * number of owed items commit atomically with the state, with nothing lost and nothing sent
 * twice. `committed` is pruned at each such commit to the ids that still have an owed item.
 *
 * An owed item marked sent may be kept as a tombstone (`sentAt`, the notifier's messages:
 * `dynamodb-sent.ts`): neither owed nor an orphan, it keeps a late write of the item from
 * making it owed again.
 *
 * Every commit records its id as `writtenBy`: when the update was applied but its answer was
 * lost, the SDK's retry fails the revision check, and the item it returns (`ALL_OLD`) shows the
 * commit's own id, so the commit succeeded rather than lost a race.
 */

type Item = Record<string, AttributeValue>;

/** Told of an orphan a read could not delete: its sort key and why. */
export type OrphanLeft = (sortKey: string, error: unknown) => void;

/** A partition as read: its state item, revision, and the owed items that are owed. */
export interface PartitionRead {
  /** Absent before the first commit. */
  readonly stateItem: Item | undefined;
  readonly revision: number;
  /** Owed items with a committed id, in the order read. */
  readonly owed: readonly Item[];
  /** Orphans: items no commit of a revision still reachable can make owed. */
  readonly orphans: readonly Item[];
  /** Items marked sent and kept as tombstones (`sentAt`). */
  readonly tombstones: readonly Item[];
}

/**
 * Reads every item of `partition` and sorts the owed items into owed and orphans. Nothing is
 * decoded: the stores read their own bodies. `projection` reads some attributes only (it must
 * keep `sk`, `revision`, `committed` and `commits`).
 */
export async function readPartition(
  client: DynamoDBClient,
  table: string,
  partition: Partition,
  projection?: { readonly expression: string; readonly names: Record<string, string> },
): Promise<PartitionRead> {
  const items = await queryPartition(
    client,
    table,
    partition,
    projection?.expression,
    projection?.names,
  );
  const stateItem = items.find((item) => item.sk?.S === STATE_SK);
  if (stateItem === undefined) {
    return { stateItem, revision: 0, owed: [], orphans: [], tombstones: [] };
  }
  const revision = Number(stateItem[ATTR.revision]?.N ?? '0');
  const committed = new Set(stateItem[ATTR.committed]?.SS ?? []);
  const owed: Item[] = [];
  const orphans: Item[] = [];
  const tombstones: Item[] = [];
  for (const item of items) {
    if (item === stateItem) continue;
    if (item[ATTR.sentAt] !== undefined) {
      tombstones.push(item);
      continue;
    }
    const commits = item[ATTR.commits]?.SS ?? [];
    if (commits.some((id) => committed.has(id))) owed.push(item);
    // No commit of a revision already reached can succeed any more: a lost race or a crash.
    else if (commits.every((id) => commitRevision(id) <= revision)) orphans.push(item);
  }
  return { stateItem, revision, owed, orphans, tombstones };
}

/**
 * Deletes orphans, each only if it changed since it was read: the condition names the exact
 * set of commit ids seen, so an item deleted by another run and written again by a commit in
 * flight (the same id, another commit) is left alone. Best effort: an orphan is never
 * delivered, so a failed delete (throttling, a timeout, a role without DeleteItem) only leaves
 * it to the next read or to its TTL, and must not fail the run: `onLeft` hears of it, so a
 * missing permission shows. An item that changed since it was read is no failure.
 */
export async function deleteOrphans(
  client: DynamoDBClient,
  table: string,
  orphans: readonly Item[],
  onLeft?: OrphanLeft,
): Promise<void> {
  await parallel(orphans, async (item) => {
    const commits = item[ATTR.commits]?.SS ?? [];
    const names = commits.map((_, i) => `:c${i}`);
    try {
      await client.send(
        new DeleteItemCommand({
          TableName: table,
          Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue },
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
    } catch (error) {
      // Left for the next read or the TTL (see above).
      if (!(error instanceof ConditionalCheckFailedException)) onLeft?.(item.sk?.S ?? '', error);
    }
  });
}

/**
 * The committed ids that still have an owed item, read with the revision: a stale revision is
 * a conflict (`conflict()`), found before anything is written.
 */
export async function liveCommits(
  client: DynamoDBClient,
  table: string,
  partition: Partition,
  expectedRevision: number,
  conflict: () => Error,
): Promise<string[]> {
  const items = await queryPartition(
    client,
    table,
    partition,
    'sk, #revision, #committed, #commits',
    { '#revision': ATTR.revision, '#committed': ATTR.committed, '#commits': ATTR.commits },
  );
  const stateItem = items.find((item) => item.sk?.S === STATE_SK);
  if (Number(stateItem?.[ATTR.revision]?.N ?? '0') !== expectedRevision) throw conflict();
  const referenced = new Set(items.flatMap((item) => item[ATTR.commits]?.SS ?? []));
  return (stateItem?.[ATTR.committed]?.SS ?? []).filter((id) => referenced.has(id));
}

/** One owed item to write: its key, the attribute holding its JSON, and how errors name it. */
export interface OwedWrite {
  readonly key: Item;
  readonly attribute: string;
  readonly json: string;
  /** "notification abc of live_calls", "message abc". */
  readonly what: string;
}

/**
 * Writes an owed item, adding `commitId` to its `commits`. With `unlessSent` (items marked sent
 * by a tombstone), only if no tombstone says it was sent: a first attempt that reaches DynamoDB
 * after the SDK's retry succeeded and the item was sent and marked must not make it owed again.
 * Resolves `false` when the tombstone refused the write (the item was sent already).
 */
export async function putOwed(
  client: DynamoDBClient,
  table: string,
  owed: OwedWrite,
  commitId: string,
  expiresAt: AttributeValue,
  unlessSent = false,
): Promise<boolean> {
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: owed.key,
        UpdateExpression: 'SET #body = :body, expiresAt = :expiresAt ADD #commits :c',
        ...(unlessSent ? { ConditionExpression: 'attribute_not_exists(#sentAt)' } : {}),
        ExpressionAttributeNames: {
          '#body': owed.attribute,
          '#commits': ATTR.commits,
          ...(unlessSent ? { '#sentAt': ATTR.sentAt } : {}),
        },
        ExpressionAttributeValues: {
          ':body': { S: owed.json },
          ':expiresAt': expiresAt,
          ':c': { SS: [commitId] },
        },
      }),
    );
    return true;
  } catch (error) {
    if (unlessSent && error instanceof ConditionalCheckFailedException) return false;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StateStoreError(`cannot record ${owed.what} as owed: ${reason}`, { cause: error });
  }
}

/** The conditional update of a state item that completes a commit. */
export interface StateWrite {
  readonly key: Item;
  readonly expectedRevision: number;
  readonly commitId: string;
  readonly state: Uint8Array;
  /** The live commit ids and this commit's; absent for a commit without owed items. */
  readonly committed?: readonly string[];
  readonly expiresAt: AttributeValue;
  readonly writtenAtMs: number;
  /** The error for a lost race. */
  readonly conflict: (cause: unknown) => Error;
  /** The error for any other failure. */
  readonly failure: (cause: unknown) => Error;
}

/**
 * Writes the state item if its revision is still `expectedRevision`: the new revision. A failed
 * check that shows this very commit's write (applied, its answer lost) counts as done.
 *
 * @throws whatever `conflict` makes on a lost race, `failure` on anything else.
 */
export async function writeState(
  client: DynamoDBClient,
  table: string,
  write: StateWrite,
): Promise<number> {
  const revision = write.expectedRevision + 1;
  const names: Record<string, string> = {
    '#state': ATTR.state,
    '#revision': ATTR.revision,
    '#writtenAt': ATTR.writtenAt,
    '#writtenBy': ATTR.writtenBy,
  };
  const values: Record<string, AttributeValue> = {
    ':state': { B: write.state },
    ':revision': { N: String(revision) },
    ':expiresAt': write.expiresAt,
    ':writtenAt': { N: String(write.writtenAtMs) },
    ':writtenBy': { S: write.commitId },
  };
  const sets = [
    '#state = :state',
    '#revision = :revision',
    'expiresAt = :expiresAt',
    '#writtenAt = :writtenAt',
    '#writtenBy = :writtenBy',
  ];
  if (write.committed !== undefined) {
    names['#committed'] = ATTR.committed;
    values[':committed'] = { SS: [...write.committed] };
    sets.push('#committed = :committed');
  }
  let condition = 'attribute_not_exists(pk)';
  if (write.expectedRevision > 0) {
    condition = '#revision = :expected';
    values[':expected'] = { N: String(write.expectedRevision) };
  }
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: write.key,
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
      const item = error.Item;
      if (
        item?.[ATTR.revision]?.N === String(revision) &&
        item[ATTR.writtenBy]?.S === write.commitId
      ) {
        return revision;
      }
      throw write.conflict(error);
    }
    throw write.failure(error);
  }
  return revision;
}

/**
 * Marks items sent, `BATCH_WRITE_MAX` requests at a time (once each), retrying what DynamoDB
 * leaves unprocessed; `what` names them in errors ("notifications of live_calls").
 */
export async function writeSent(
  client: DynamoDBClient,
  table: string,
  requests: readonly BatchRequest[],
  sleep: (ms: number) => Promise<void>,
  what: string,
): Promise<void> {
  const batches: BatchRequest[][] = [];
  for (let start = 0; start < requests.length; start += BATCH_WRITE_MAX) {
    batches.push(requests.slice(start, start + BATCH_WRITE_MAX));
  }
  await parallel(batches, (batch) => writeBatch(client, table, batch, sleep, what));
}

/** Deletes items by key, as `writeSent`. */
export function deleteKeys(
  client: DynamoDBClient,
  table: string,
  keys: readonly Item[],
  sleep: (ms: number) => Promise<void>,
  what: string,
): Promise<void> {
  const requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  return writeSent(client, table, requests, sleep, what);
}
