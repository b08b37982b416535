import { CreateTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../functions/adapters/dynamodb-state';
import { describeStateStoreContract } from '../ports/contract';
import { sampleNotification, sampleState } from '../ports/fixtures';
import { type Moto, startMoto } from './moto';

let moto: Moto;
let client: DynamoDBClient;
let tables = 0;

beforeAll(async () => {
  moto = await startMoto();
  moto.applyEnv();
  client = new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1' });
});
afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

/** A fresh table per store, shaped as the stack creates it. */
async function freshStore(now = () => Date.UTC(2026, 10, 21)): Promise<DynamoStateStore> {
  tables += 1;
  const tableName = `telealert-state-${tables}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  return new DynamoStateStore({ client, tableName, now });
}

describeStateStoreContract('DynamoDB on moto', () => freshStore());

describe('Class: DynamoStateStore', () => {
  it('writes one item per source with the TTL 30 days after the last write', async () => {
    const store = await freshStore(() => Date.UTC(2026, 10, 21));
    await store.commit('live_calls', 0, sampleState(), [sampleNotification()]);
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: `telealert-state-${tables}`,
        Key: { pk: { S: 'live_calls' }, sk: { S: 'state' } },
      }),
    );
    expect(Item?.expiresAt?.N).toBe(String(Date.UTC(2026, 11, 21) / 1000));
    expect(Item?.revision?.N).toBe('1');
  });

  it('keeps every owed notification when one commit carries more than fit one expression', async () => {
    const store = await freshStore();
    await store.commit('payments', 0, sampleState('payments'), [sampleNotification()]);
    const flood = Array.from({ length: 150 }, (_, i) =>
      sampleNotification({ key: `big-payment{id=${i}}` }),
    );
    await store.commit('payments', 1, sampleState('payments'), flood);
    expect((await store.load('payments')).owed).toHaveLength(151);
  });
});
