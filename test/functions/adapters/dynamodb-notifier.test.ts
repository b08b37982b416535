import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  QueryCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoNotifierStore } from '../../../functions/adapters/dynamodb-notifier';
import { newCommitId } from '../../../functions/adapters/dynamodb-state-items';
import type { NotifierState } from '../../../shared/notifier/types';
import { NotifierConflictError, StateStoreError } from '../../../shared/ports/errors';
import { sampleMessage } from '../../ports/notifier-contract';

const dynamodb = mockClient(DynamoDBClient);
afterEach(() => dynamodb.reset());

const store = () =>
  new DynamoNotifierStore({
    client: new DynamoDBClient({ region: 'us-east-1' }),
    tableName: 't',
    now: () => Date.UTC(2026, 10, 21),
    sleep: async () => {},
  });

const STATE: NotifierState = { version: 1, channels: {} };

function stateItem(revision: number, committed: string[]): Record<string, AttributeValue> {
  return {
    pk: { S: 'notifier' },
    sk: { S: 'state' },
    state: { B: gzipSync(JSON.stringify({ state: STATE, consumed: { e1: 5 } })) },
    revision: { N: String(revision) },
    ...(committed.length > 0 ? { committed: { SS: committed } } : {}),
  };
}

function messageItem(id: string, commits: string[]): Record<string, AttributeValue> {
  return {
    pk: { S: 'notifier' },
    sk: { S: `message#${id}` },
    message: { S: JSON.stringify(sampleMessage(id)) },
    commits: { SS: commits },
  };
}

const updates = () =>
  dynamodb
    .commandCalls(UpdateItemCommand)
    .map((call) => call.args[0].input as UpdateItemCommandInput);

describe('Class: DynamoNotifierStore (mocked)', () => {
  describe('Method: loadNotifier', () => {
    it('returns the messages of committed commits only, leaving those of a commit in flight', async () => {
      const committed = newCommitId(3);
      dynamodb.on(QueryCommand).resolves({
        Items: [
          messageItem('bb', [committed]),
          messageItem('cc', [newCommitId(4)]),
          stateItem(3, [committed]),
        ],
      });
      const loaded = await store().loadNotifier();
      expect(loaded).toEqual({
        state: STATE,
        revision: 3,
        consumed: { e1: 5 },
        owed: [sampleMessage('bb')],
      });
      expect(dynamodb.commandCalls(DeleteItemCommand)).toHaveLength(0);
    });

    it('deletes an orphan only if it still holds exactly the commit ids it was read with', async () => {
      // Another step may write the same message id again (ids are deterministic) between this
      // read and the delete: an unconditional delete would lose the message it commits.
      const id = newCommitId(3);
      dynamodb.on(QueryCommand).resolves({ Items: [messageItem('aa', [id]), stateItem(3, [])] });
      dynamodb.on(DeleteItemCommand).resolves({});
      expect((await store().loadNotifier()).owed).toEqual([]);
      expect(dynamodb.commandCalls(BatchWriteItemCommand)).toHaveLength(0);
      expect(dynamodb.commandCalls(DeleteItemCommand)[0]?.args[0].input).toMatchObject({
        Key: { pk: { S: 'notifier' }, sk: { S: 'message#aa' } },
        ConditionExpression: 'size(#commits) = :n AND contains(#commits, :c0)',
        ExpressionAttributeValues: { ':n': { N: '1' }, ':c0': { S: id } },
      });
    });

    it('still loads when deleting an orphan fails: the orphan is left to the next load', async () => {
      dynamodb
        .on(QueryCommand)
        .resolves({ Items: [messageItem('aa', [newCommitId(2)]), stateItem(3, [])] });
      dynamodb.on(DeleteItemCommand).rejects(new Error('ProvisionedThroughputExceededException'));
      expect(await store().loadNotifier()).toMatchObject({ revision: 3, owed: [] });
    });

    it('reports a state item it cannot read as a StateStoreError', async () => {
      dynamodb.on(QueryCommand).resolves({
        Items: [{ ...stateItem(1, []), state: { B: new Uint8Array([1, 2, 3]) } }],
      });
      await expect(store().loadNotifier()).rejects.toThrow('the notifier state in t is unreadable');
    });
  });

  describe('Method: commitNotifier', () => {
    const conditionFails = (
      item: (input: UpdateItemCommandInput) => Record<string, AttributeValue>,
    ) =>
      dynamodb.on(UpdateItemCommand).callsFake((input: UpdateItemCommandInput) => {
        throw new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
          Item: item(input),
        });
      });

    it('writes the owed messages before the state update that records their commit id', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [stateItem(2, [])] });
      dynamodb.on(UpdateItemCommand).resolves({});
      const commit = { state: STATE, consumed: { e2: 6 }, owed: [sampleMessage('aa')] };
      expect(await store().commitNotifier(2, commit)).toBe(3);
      const [owedWrite, stateUpdate] = updates();
      expect(owedWrite?.Key).toEqual({ pk: { S: 'notifier' }, sk: { S: 'message#aa' } });
      const commitId = owedWrite?.ExpressionAttributeValues?.[':c']?.SS?.[0];
      expect(commitId).toMatch(/^3\./);
      expect(stateUpdate).toMatchObject({
        Key: { pk: { S: 'notifier' }, sk: { S: 'state' } },
        ConditionExpression: '#revision = :expected',
      });
      expect(stateUpdate?.ExpressionAttributeValues?.[':committed']?.SS).toEqual([commitId]);
      expect(stateUpdate?.ExpressionAttributeValues?.[':writtenBy']?.S).toBe(commitId);
    });

    it('takes its own applied write for success when the retry of a lost answer fails the revision check', async () => {
      conditionFails((input) => ({
        ...stateItem(4, []),
        writtenBy: input.ExpressionAttributeValues?.[':writtenBy'] as AttributeValue,
      }));
      expect(await store().commitNotifier(3, { state: STATE, consumed: {}, owed: [] })).toBe(4);
    });

    it('reports a lost race as a NotifierConflictError', async () => {
      conditionFails(() => ({ ...stateItem(4, []), writtenBy: { S: newCommitId(4) } }));
      await expect(
        store().commitNotifier(3, { state: STATE, consumed: {}, owed: [] }),
      ).rejects.toBeInstanceOf(NotifierConflictError);
    });

    it('finds a stale revision before writing any message', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [stateItem(5, [])] });
      await expect(
        store().commitNotifier(3, { state: STATE, consumed: {}, owed: [sampleMessage('aa')] }),
      ).rejects.toBeInstanceOf(NotifierConflictError);
      expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    });

    it('refuses a state too large for an item before writing any message', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [stateItem(1, [])] });
      // Event ids as hashes do not compress: 40,000 of them are well over the item limit.
      const noise = Object.fromEntries(
        Array.from({ length: 40_000 }, (_, i) => [
          createHash('sha256').update(String(i)).digest('hex').slice(0, 32),
          i,
        ]),
      );
      const error = await store()
        .commitNotifier(1, { state: STATE, consumed: noise, owed: [sampleMessage('aa')] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).message).toMatch(/over the 358400 a DynamoDB item may hold/);
      expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    });
  });

  describe('Method: markMessagesSent', () => {
    it('replaces each message by its tombstone once, 25 at a time, kept an hour', async () => {
      dynamodb.on(BatchWriteItemCommand).resolves({});
      const ids = Array.from({ length: 30 }, (_, i) => i.toString(16).padStart(2, '0'));
      await store().markMessagesSent([...ids, '00']);
      const requests = dynamodb
        .commandCalls(BatchWriteItemCommand)
        .map((call) => call.args[0].input.RequestItems?.t ?? []);
      expect(requests.map((batch) => batch.length).sort()).toEqual([25, 5]);
      expect(requests.flat()[0]).toEqual({
        PutRequest: {
          Item: {
            pk: { S: 'notifier' },
            sk: { S: 'message#00' },
            sentAt: { N: String(Date.UTC(2026, 10, 21)) },
            expiresAt: { N: String(Date.UTC(2026, 10, 21) / 1000 + 3600) },
          },
        },
      });
    });
  });

  describe('Tombstones of sent messages', () => {
    const NOW = Date.UTC(2026, 10, 21);
    const tombstone = (id: string, sentAt: number): Record<string, AttributeValue> => ({
      pk: { S: 'notifier' },
      sk: { S: `message#${id}` },
      sentAt: { N: String(sentAt) },
      expiresAt: { N: String(Math.floor(sentAt / 1000) + 3600) },
    });

    it('writes an owed message only where no tombstone says it was sent', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [stateItem(2, [])] });
      dynamodb.on(UpdateItemCommand).resolves({});
      await store().commitNotifier(2, { state: STATE, consumed: {}, owed: [sampleMessage('aa')] });
      expect(updates()[0]).toMatchObject({
        Key: { sk: { S: 'message#aa' } },
        ConditionExpression: 'attribute_not_exists(#sentAt)',
        ExpressionAttributeNames: { '#sentAt': 'sentAt' },
      });
    });

    it('commits when a tombstone refuses an owed write: the message was sent, it is not owed again', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [stateItem(2, [])] });
      dynamodb
        .on(UpdateItemCommand, { Key: { pk: { S: 'notifier' }, sk: { S: 'message#aa' } } })
        .rejects(
          new ConditionalCheckFailedException({ message: 'sent', $metadata: {}, Item: undefined }),
        )
        .on(UpdateItemCommand, { Key: { pk: { S: 'notifier' }, sk: { S: 'state' } } })
        .resolves({});
      const commit = { state: STATE, consumed: {}, owed: [sampleMessage('aa')] };
      expect(await store().commitNotifier(2, commit)).toBe(3);
    });

    it('loads a tombstone as neither owed nor orphan, and deletes it once its hour is over', async () => {
      const committed = newCommitId(3);
      dynamodb.on(QueryCommand).resolves({
        Items: [
          tombstone('aa', NOW - 3_600_000),
          tombstone('bb', NOW - 60_000),
          messageItem('cc', [committed]),
          stateItem(3, [committed]),
        ],
      });
      dynamodb.on(DeleteItemCommand).resolves({});
      expect((await store().loadNotifier()).owed).toEqual([sampleMessage('cc')]);
      const deletes = dynamodb.commandCalls(DeleteItemCommand).map((call) => call.args[0].input);
      expect(deletes).toEqual([
        expect.objectContaining({
          Key: { pk: { S: 'notifier' }, sk: { S: 'message#aa' } },
          ConditionExpression: '#sentAt = :sentAt',
          ExpressionAttributeValues: { ':sentAt': { N: String(NOW - 3_600_000) } },
        }),
      ]);
    });
  });
});
