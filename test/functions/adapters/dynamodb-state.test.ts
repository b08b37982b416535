import { randomBytes } from 'node:crypto';
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
import { DynamoStateStore } from '../../../functions/adapters/dynamodb-state';
import { decodeState, newCommitId } from '../../../functions/adapters/dynamodb-state-items';
import { StateTooLargeError } from '../../../functions/adapters/errors';
import type { SourceState } from '../../../shared/engine/types';
import { StateConflictError, StateStoreError } from '../../../shared/ports/errors';
import { sampleNotification, sampleState } from '../../ports/fixtures';

const dynamodb = mockClient(DynamoDBClient);
afterEach(() => dynamodb.reset());

const store = () =>
  new DynamoStateStore({
    client: new DynamoDBClient({ region: 'us-east-1' }),
    tableName: 't',
    now: () => Date.UTC(2026, 10, 21),
    sleep: async () => {},
  });

function stateItem(revision: number, committed: string[], state = sampleState()) {
  return {
    pk: { S: 'live_calls' },
    sk: { S: 'state' },
    state: { B: gzipSync(JSON.stringify(state)) },
    revision: { N: String(revision) },
    ...(committed.length > 0 ? { committed: { SS: committed } } : {}),
  };
}

function owedItem(id: string, at: string, commits: string[]): Record<string, AttributeValue> {
  const n = sampleNotification({ key: id, at });
  return {
    pk: { S: 'live_calls' },
    sk: { S: `owed#${n.id}` },
    notification: { S: JSON.stringify(n) },
    commits: { SS: commits },
  };
}

const updates = () =>
  dynamodb
    .commandCalls(UpdateItemCommand)
    .map((call) => call.args[0].input as UpdateItemCommandInput);

describe('Class: DynamoStateStore (mocked)', () => {
  describe('Method: commit', () => {
    it('writes a commit without owed notifications as one conditional update of the state item', async () => {
      dynamodb.on(UpdateItemCommand).resolves({});
      expect(await store().commit('live_calls', 3, sampleState(), [])).toBe(4);
      expect(dynamodb.calls()).toHaveLength(1);
      const [update] = updates();
      expect(update).toMatchObject({
        Key: { pk: { S: 'live_calls' }, sk: { S: 'state' } },
        ConditionExpression: '#revision = :expected',
        ExpressionAttributeValues: { ':expected': { N: '3' }, ':revision': { N: '4' } },
      });
      expect(update?.UpdateExpression).not.toContain('committed');
      const bytes = update?.ExpressionAttributeValues?.[':state']?.B ?? new Uint8Array();
      expect(decodeState(bytes)).toEqual(sampleState());
    });

    it('creates the state item only if none exists on the first commit', async () => {
      dynamodb.on(UpdateItemCommand).resolves({});
      await store().commit('live_calls', 0, sampleState(), []);
      expect(updates()[0]?.ConditionExpression).toBe('attribute_not_exists(pk)');
    });

    it('writes every owed item under one commit id before the state update that records it', async () => {
      const live = newCommitId(2);
      const gone = newCommitId(3);
      dynamodb.on(QueryCommand).resolves({
        Items: [
          { sk: { S: 'owed#x' }, commits: { SS: [live, newCommitId(9)] } },
          { sk: { S: 'state' }, revision: { N: '3' }, committed: { SS: [live, gone] } },
        ],
      });
      dynamodb.on(UpdateItemCommand).resolves({});
      const owed = Array.from({ length: 130 }, (_, i) => sampleNotification({ key: `r{id=${i}}` }));
      await store().commit('live_calls', 3, sampleState(), owed);

      const all = updates();
      expect(all).toHaveLength(131);
      const owedWrites = all.slice(0, 130);
      expect(owedWrites.map((u) => u.Key?.sk?.S).sort()).toEqual(
        owed.map((n) => `owed#${n.id}`).sort(),
      );
      const commitIds = new Set(
        owedWrites.map((u) => u.ExpressionAttributeValues?.[':c']?.SS?.[0]),
      );
      expect(commitIds.size).toBe(1);
      const [commitId] = [...commitIds];
      expect(commitId).toMatch(/^4\./);
      expect(owedWrites[0]?.UpdateExpression).toContain('ADD #commits :c');
      const last = all[130];
      expect(last?.Key?.sk?.S).toBe('state');
      // The id with no owed item left is pruned; the live one and the new one are recorded.
      expect(last?.ExpressionAttributeValues?.[':committed']?.SS).toEqual([live, commitId]);
      expect(dynamodb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
        ConsistentRead: true,
      });
    });

    /** Fails the state update's condition as DynamoDB does, returning the item as it stands. */
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

    it('takes its own applied write for success when the retry of a lost answer fails the revision check', async () => {
      conditionFails((input) => ({
        ...stateItem(4, []),
        writtenBy: input.ExpressionAttributeValues?.[':writtenBy'] as AttributeValue,
      }));
      expect(await store().commit('live_calls', 3, sampleState(), [])).toBe(4);
      const [update] = updates();
      expect(update?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
      expect(update?.ExpressionAttributeValues?.[':writtenBy']?.S).toMatch(/^4\./);
    });

    it('recognises its own write of owed notifications by the commit id it recorded', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [{ sk: { S: 'state' }, revision: { N: '3' } }] });
      conditionFails((input) => {
        const own = input.ExpressionAttributeValues?.[':writtenBy'] as AttributeValue;
        return { ...stateItem(4, [own.S ?? '']), writtenBy: own };
      });
      // The owed item write passes; only the state update finds its own write already there.
      dynamodb
        .on(UpdateItemCommand, {
          Key: { pk: { S: 'live_calls' }, sk: { S: `owed#${sampleNotification().id}` } },
        })
        .resolves({});
      expect(await store().commit('live_calls', 3, sampleState(), [sampleNotification()])).toBe(4);
      const [owedWrite, stateUpdate] = updates();
      expect(stateUpdate?.ExpressionAttributeValues?.[':writtenBy']?.S).toBe(
        owedWrite?.ExpressionAttributeValues?.[':c']?.SS?.[0],
      );
    });

    it.each([
      [
        'another commit wrote the next revision',
        { ...stateItem(4, []), writtenBy: { S: newCommitId(4) } },
      ],
      ['the revision moved on further', { ...stateItem(5, []), writtenBy: { S: newCommitId(5) } }],
      ['the item records no writer', stateItem(4, [])],
    ])('reports a lost race as a conflict when %s', async (_, item) => {
      conditionFails(() => item);
      await expect(store().commit('live_calls', 3, sampleState(), [])).rejects.toBeInstanceOf(
        StateConflictError,
      );
    });

    it('reports a conflict when the failed check returns no item (a first commit that lost)', async () => {
      dynamodb.on(UpdateItemCommand).rejects(
        new ConditionalCheckFailedException({
          message: 'The conditional request failed',
          $metadata: {},
        }),
      );
      await expect(store().commit('live_calls', 0, sampleState(), [])).rejects.toBeInstanceOf(
        StateConflictError,
      );
    });

    it('finds a stale revision before writing anything', async () => {
      dynamodb.on(QueryCommand).resolves({
        Items: [{ sk: { S: 'state' }, revision: { N: '5' } }],
      });
      await expect(
        store().commit('live_calls', 3, sampleState(), [sampleNotification()]),
      ).rejects.toBeInstanceOf(StateConflictError);
      expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    });

    it('refuses a state too large for one item, with what to do, before writing anything', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [{ sk: { S: 'state' }, revision: { N: '1' } }] });
      const base = sampleState('payments');
      // Random context barely compresses: 500 alerts of ~1.3 KB each.
      const alerts = Object.fromEntries(
        Array.from({ length: 500 }, (_, i) => {
          const alert = Object.values(base.alerts)[0];
          const context = { note: randomBytes(1000).toString('base64') };
          return [`large-payment{id=${i}}`, { ...alert, context }];
        }),
      );
      const huge = { ...base, alerts } as SourceState;
      const error = await store()
        .commit('payments', 1, huge, [sampleNotification()])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateTooLargeError);
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).message).toMatch(
        /state of payments is \d+ KB compressed \(500 live alert instances\), over the 350 KB .*narrow the payments rules.*shorten sources\.payments\.lookback/,
      );
      expect(dynamodb.commandCalls(UpdateItemCommand)).toHaveLength(0);
    });
  });

  describe('Method: load', () => {
    it('returns only committed owed items, in time order, across pages', async () => {
      const committed = newCommitId(2);
      dynamodb
        .on(QueryCommand)
        .resolvesOnce({
          Items: [
            owedItem('late', '2026-11-21T04:50:00.000Z', [committed]),
            owedItem('in-flight', '2026-11-21T04:10:00.000Z', [newCommitId(4)]),
          ],
          LastEvaluatedKey: { pk: { S: 'live_calls' }, sk: { S: 'owed#late' } },
        })
        .resolvesOnce({
          Items: [
            owedItem('early', '2026-11-21T04:30:00.000Z', [newCommitId(3), committed]),
            stateItem(3, [committed]),
          ],
        });
      const loaded = await store().load('live_calls');
      expect(loaded.revision).toBe(3);
      expect(loaded.state).toEqual(sampleState());
      expect(loaded.owed.map((n) => n.key)).toEqual(['early', 'late']);
      expect(dynamodb.commandCalls(QueryCommand)[1]?.args[0].input.ExclusiveStartKey).toEqual({
        pk: { S: 'live_calls' },
        sk: { S: 'owed#late' },
      });
      expect(dynamodb.commandCalls(DeleteItemCommand)).toHaveLength(0);
    });

    it('deletes an orphan only if it still holds exactly the commit ids it was read with', async () => {
      const id = newCommitId(3);
      const lost = owedItem('lost', '2026-11-21T04:30:00.000Z', [id]);
      dynamodb.on(QueryCommand).resolves({ Items: [lost, stateItem(3, [])] });
      dynamodb.on(DeleteItemCommand).resolves({});
      expect((await store().load('live_calls')).owed).toEqual([]);
      expect(dynamodb.commandCalls(DeleteItemCommand)[0]?.args[0].input).toMatchObject({
        Key: { pk: lost.pk, sk: lost.sk },
        ConditionExpression: 'size(#commits) = :n AND contains(#commits, :c0)',
        ExpressionAttributeValues: { ':n': { N: '1' }, ':c0': { S: id } },
      });
    });

    it('still loads when deleting an orphan fails: the orphan is left to the next load', async () => {
      const lost = owedItem('lost', '2026-11-21T04:30:00.000Z', [newCommitId(3)]);
      dynamodb.on(QueryCommand).resolves({ Items: [lost, stateItem(3, [])] });
      dynamodb.on(DeleteItemCommand).rejects(new Error('ProvisionedThroughputExceededException'));
      const loaded = await store().load('live_calls');
      expect(loaded).toMatchObject({ revision: 3, owed: [] });
    });

    it('tells of an orphan it cannot delete, but not of one that changed since it was read', async () => {
      const denied = owedItem('denied', '2026-11-21T04:30:00.000Z', [newCommitId(3)]);
      const rewritten = owedItem('rewritten', '2026-11-21T04:31:00.000Z', [newCommitId(2)]);
      dynamodb.on(QueryCommand).resolves({ Items: [denied, rewritten, stateItem(3, [])] });
      dynamodb
        .on(DeleteItemCommand, {
          Key: { pk: denied.pk as AttributeValue, sk: denied.sk as AttributeValue },
        })
        .rejects(new Error('AccessDeniedException: not authorized to perform dynamodb:DeleteItem'))
        .on(DeleteItemCommand, {
          Key: { pk: rewritten.pk as AttributeValue, sk: rewritten.sk as AttributeValue },
        })
        .rejects(
          new ConditionalCheckFailedException({
            message: 'The conditional request failed',
            $metadata: {},
          }),
        );
      const left: [string, string][] = [];
      const loaded = await new DynamoStateStore({
        client: new DynamoDBClient({ region: 'us-east-1' }),
        tableName: 't',
        onOrphanLeft: (sortKey, error) => left.push([sortKey, (error as Error).message]),
      }).load('live_calls');
      expect(loaded.owed).toEqual([]);
      expect(left).toEqual([
        [denied.sk?.S, 'AccessDeniedException: not authorized to perform dynamodb:DeleteItem'],
      ]);
    });

    it('reports a state item it cannot read as a StateStoreError', async () => {
      dynamodb.on(QueryCommand).resolves({
        Items: [{ ...stateItem(1, []), state: { B: new Uint8Array([1, 2, 3]) } }],
      });
      await expect(store().load('live_calls')).rejects.toThrow(
        'the stored state of live_calls in t is unreadable',
      );
    });
  });

  describe('Method: markSent', () => {
    it('deletes owed items 25 at a time, once each, retrying what DynamoDB left unprocessed', async () => {
      const ids = Array.from({ length: 60 }, (_, i) => `id-${i}`);
      const retried = {
        DeleteRequest: { Key: { pk: { S: 'live_calls' }, sk: { S: 'owed#id-0' } } },
      };
      dynamodb
        .on(BatchWriteItemCommand)
        .resolvesOnce({ UnprocessedItems: { t: [retried] } })
        .resolves({});
      await store().markSent('live_calls', [...ids, 'id-0']);
      const sizes = dynamodb
        .commandCalls(BatchWriteItemCommand)
        .map((call) => call.args[0].input.RequestItems?.t?.length);
      expect(sizes.sort()).toEqual([1, 10, 25, 25]);
    });

    it('gives up with a StateStoreError when DynamoDB keeps items unprocessed', async () => {
      const stuck = { DeleteRequest: { Key: { pk: { S: 'live_calls' }, sk: { S: 'owed#a' } } } };
      dynamodb.on(BatchWriteItemCommand).resolves({ UnprocessedItems: { t: [stuck] } });
      await expect(store().markSent('live_calls', ['a'])).rejects.toBeInstanceOf(StateStoreError);
    });
  });

  describe('Method: narrowOwed', () => {
    it('rewrites only the owed item notification, on condition the item still exists', async () => {
      const item = owedItem('k1', '2026-11-21T04:31:00.000Z', ['1.aa']);
      const n = JSON.parse(item.notification?.S ?? '');
      dynamodb.on(QueryCommand).resolves({ Items: [item] });
      dynamodb.on(UpdateItemCommand).resolves({});
      await store().narrowOwed('live_calls', n.id, []);
      const [update] = updates();
      expect(update).toMatchObject({
        Key: { pk: { S: 'live_calls' }, sk: { S: `owed#${n.id}` } },
        UpdateExpression: 'SET #notification = :n',
        ConditionExpression: 'attribute_exists(pk)',
      });
      expect(JSON.parse(update?.ExpressionAttributeValues?.[':n']?.S ?? '')).toEqual({
        ...n,
        channels: [],
      });
    });

    it('does nothing when the item is gone before or during the rewrite', async () => {
      dynamodb.on(QueryCommand).resolves({ Items: [] });
      await store().narrowOwed('live_calls', 'gone', ['finance']);
      expect(updates()).toEqual([]);

      dynamodb
        .on(QueryCommand)
        .resolves({ Items: [owedItem('k1', '2026-11-21T04:31:00.000Z', [])] });
      dynamodb
        .on(UpdateItemCommand)
        .rejects(new ConditionalCheckFailedException({ message: 'gone', $metadata: {} }));
      await expect(store().narrowOwed('live_calls', 'k1', ['oncall'])).resolves.toBeUndefined();
      expect(updates()).toHaveLength(1);
    });
  });
});
