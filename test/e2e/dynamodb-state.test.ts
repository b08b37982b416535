import { DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoStateStore } from '../../functions/adapters/dynamodb-state';
import { decodeState, MAX_STATE_ITEM_BYTES } from '../../functions/adapters/dynamodb-state-items';
import { loadConfigFile } from '../../shared/config/load';
import { evaluate } from '../../shared/engine/evaluate';
import { StateStoreError } from '../../shared/ports/errors';
import { readBatch } from '../../shared/records/parse';
import { formatApiDateTime } from '../../shared/time/zone';
import { describeStateStoreContract } from '../ports/contract';
import { sampleNotification, sampleState } from '../ports/fixtures';
import { createStateTable } from '../support/aws';
import { type Moto, startMoto } from './moto';

const NOW = Date.UTC(2026, 10, 21);
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
async function freshTable(): Promise<string> {
  tables += 1;
  const tableName = `telealert-state-${tables}`;
  await createStateTable(client, tableName);
  return tableName;
}

async function freshStore(now = () => NOW): Promise<DynamoStateStore> {
  return new DynamoStateStore({ client, tableName: await freshTable(), now });
}

async function items(tableName: string, source: string) {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: source } },
    }),
  );
  return Items;
}

/** `count` raw payments of 150000.00 spread over the last day, as the API sends them. */
function largePayments(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    id: String(9_000_000 + i),
    amount_paid: '150000.00',
    payment_id: `pay_${(1e12 + i * 7919).toString(36)}`,
    created_at: formatApiDateTime(NOW - (i + 1) * 60_000, 'Asia/Kolkata'),
    gateway: i % 2 === 0 ? 'Razorpay' : 'Instamojo',
    status: 'success',
    amount_added: 127118.64,
    amount_tax: 22881.36,
  }));
}

describeStateStoreContract('DynamoDB on moto', (now) => freshStore(now));

describe('Class: DynamoStateStore', () => {
  it('writes the state compressed and each owed notification as its own item, all with the TTL', async () => {
    const tableName = await freshTable();
    const store = new DynamoStateStore({ client, tableName, now: () => NOW });
    const owed = sampleNotification();
    await store.commit('live_calls', 0, sampleState(), [owed]);
    const stored = await items(tableName, 'live_calls');
    expect(stored.map((item) => item.sk?.S)).toEqual([`owed#${owed.id}`, 'state']);
    const expiresAt = String(Date.UTC(2026, 11, 21) / 1000);
    expect(stored.map((item) => item.expiresAt?.N)).toEqual([expiresAt, expiresAt]);
    const [owedItem, stateItem] = stored;
    expect(JSON.parse(owedItem?.notification?.S ?? '')).toEqual(owed);
    expect(stateItem?.revision?.N).toBe('1');
    expect(decodeState(stateItem?.state?.B ?? new Uint8Array())).toEqual(sampleState());
  });

  it('keeps every owed notification when one commit carries more than one transaction could', async () => {
    const store = await freshStore();
    await store.commit('payments', 0, sampleState('payments'), [sampleNotification()]);
    const flood = Array.from({ length: 150 }, (_, i) =>
      sampleNotification({ key: `big-payment{id=${i}}` }),
    );
    await store.commit('payments', 1, sampleState('payments'), flood);
    expect((await store.load('payments')).owed).toHaveLength(151);
  });

  it('commits and loads a day of 1,400 large payments firing at once under the shipped rules', async () => {
    const tableName = await freshTable();
    const store = new DynamoStateStore({ client, tableName, now: () => NOW });
    const config = loadConfigFile('telealert.yaml');
    const batch = readBatch('payments', largePayments(1400), config.timezone);
    const { state, notifications } = evaluate(
      config,
      'payments',
      { ok: true, records: batch.records, skipped: batch.skipped },
      NOW,
    );
    expect(notifications.length).toBeGreaterThanOrEqual(1400);
    expect(JSON.stringify(state).length).toBeGreaterThan(400 * 1024);

    expect(await store.commit('payments', 0, state, notifications)).toBe(1);
    const loaded = await store.load('payments');
    expect(loaded.state).toEqual(state);
    expect(loaded.owed).toHaveLength(notifications.length);
    expect(new Set(loaded.owed.map((n) => n.id))).toEqual(new Set(notifications.map((n) => n.id)));
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: 'payments' }, sk: { S: 'state' } },
      }),
    );
    expect(Item?.state?.B?.byteLength).toBeLessThan(MAX_STATE_ITEM_BYTES / 2);

    await store.markSent(
      'payments',
      notifications.map((n) => n.id),
    );
    expect(await store.load('payments')).toMatchObject({ revision: 1, owed: [] });
    expect(await items(tableName, 'payments')).toHaveLength(1);
  });

  it('ignores the owed items of a commit that crashed, and deletes them once the revision moved past', async () => {
    const tableName = await freshTable();
    const store = new DynamoStateStore({ client, tableName, now: () => NOW });
    await store.commit('live_calls', 0, sampleState(), []);
    // The same adapter, but the process dies between its owed items and its state update.
    const crashing = new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1' });
    crashing.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: { sk?: { S?: string } } };
        if (input.Key?.sk?.S === 'state') throw new Error('the Lambda timed out');
        return next(args);
      },
      { step: 'initialize', name: 'crashBeforeStateUpdate' },
    );
    const orphan = sampleNotification({ at: '2026-11-21T04:40:00.000Z' });
    await expect(
      new DynamoStateStore({ client: crashing, tableName, now: () => NOW }).commit(
        'live_calls',
        1,
        sampleState('live_calls', 1),
        [orphan],
      ),
    ).rejects.toBeInstanceOf(StateStoreError);
    crashing.destroy();
    expect(await items(tableName, 'live_calls')).toHaveLength(2);

    // Revision 1 is still current: the commit might be in flight, so its item is kept.
    expect(await store.load('live_calls')).toMatchObject({ revision: 1, owed: [] });
    expect(await items(tableName, 'live_calls')).toHaveLength(2);

    const kept = sampleNotification({ at: '2026-11-21T04:41:00.000Z' });
    await store.commit('live_calls', 1, sampleState('live_calls', 2), [kept]);
    expect(await store.load('live_calls')).toMatchObject({ revision: 2, owed: [kept] });
    expect((await items(tableName, 'live_calls')).map((item) => item.sk?.S)).toEqual([
      `owed#${kept.id}`,
      'state',
    ]);
  });

  it('loads owed notifications in evaluation-time order whatever their ids', async () => {
    const store = await freshStore();
    const late = sampleNotification({ key: 'a-rule{}', at: '2026-11-21T04:50:00.000Z' });
    const early = sampleNotification({ key: 'z-rule{}', at: '2026-11-21T04:30:00.000Z' });
    await store.commit('live_calls', 0, sampleState(), [late, early]);
    expect((await store.load('live_calls')).owed).toEqual([early, late]);
  });

  it("gives the notifier a source's committed owed notifications only, none of a commit in flight, and nothing from an empty partition", async () => {
    const tableName = await freshTable();
    const store = new DynamoStateStore({ client, tableName, now: () => NOW });
    expect(await store.loadOwed('live_calls')).toEqual([]);
    const first = sampleNotification({ key: 'b-rule{}', at: '2026-11-21T04:31:00.000Z' });
    const second = sampleNotification({ key: 'a-rule{}', at: '2026-11-21T04:32:00.000Z' });
    await store.commit('live_calls', 0, sampleState(), [second, first]);
    // A commit in flight: its owed item is written, its state update not yet.
    const inFlight = new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1' });
    inFlight.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: { sk?: { S?: string } } };
        if (input.Key?.sk?.S === 'state') return new Promise<never>(() => {});
        return next(args);
      },
      { step: 'initialize', name: 'holdStateUpdate' },
    );
    const pending = sampleNotification({ key: 'c-rule{}', at: '2026-11-21T04:33:00.000Z' });
    void new DynamoStateStore({ client: inFlight, tableName, now: () => NOW })
      .commit('live_calls', 1, sampleState('live_calls', 1), [pending])
      .catch(() => undefined);
    await vi.waitFor(async () => expect(await items(tableName, 'live_calls')).toHaveLength(4));

    expect(await store.loadOwed('live_calls')).toEqual([first, second]);
    await store.markSent('live_calls', [first.id, second.id]);
    expect(await store.loadOwed('live_calls')).toEqual([]);
    // The payments partition was never written.
    expect(await store.loadOwed('payments')).toEqual([]);
    inFlight.destroy();
  });
});
