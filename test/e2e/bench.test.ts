import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, startLoopback } from '../../bench/aws';
import { measureColdStarts } from '../../bench/cold';
import { bundleFloor } from '../../bench/floor';
import { measureDeployedMemory } from '../../bench/memory';
import { PAYMENTS_COUNT } from '../../bench/processing';
import { synthesize } from '../../bench/synth';

let loopback: Loopback;
let directory: string;

beforeAll(async () => {
  loopback = await startLoopback(readFileSync('telealert.yaml', 'utf8'));
  // Under node_modules, as the bench puts its bundles: an SDK left out resolves there.
  directory = await mkdtemp(join(process.cwd(), 'node_modules', '.cache-bench-e2e-'));
});

afterAll(async () => {
  await loopback?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

async function stateBytes(): Promise<string | undefined> {
  const item = await new DynamoDBClient({}).send(
    new GetItemCommand({
      TableName: loopback.stack.tableName,
      Key: { pk: { S: 'floor' }, sk: { S: 'state' } },
    }),
  );
  return item.Item?.bytes?.N;
}

describe('the cold start floor of the bench', () => {
  it.each(['bundled', 'external'] as const)(
    'makes the first run calls in a fresh process with the SDK %s',
    async (sdk) => {
      const asset = await bundleFloor(join(directory, sdk), sdk);
      const rules = join(directory, `floor-${sdk}.json`);
      writeFileSync(rules, JSON.stringify(loopback.rules(1)));
      const requestsBefore = loopback.requests();
      const [figure] = await measureColdStarts(
        loopback,
        [{ ...asset, sdk, env: { TELEALERT_CONFIG_FILE: rules } }],
        1,
        0,
      );
      expect(figure).toMatchObject({ source: 'sdk-floor', sdk, runs: 1 });
      expect(figure?.importMs).toBeGreaterThan(0);
      expect(figure?.firstRunMs).toBeGreaterThan(0);
      expect(figure?.cpuMs).toBeGreaterThan(0);
      // The token from SSM opened the simulator (the floor refuses any answer but a 200), and
      // the answer's size reached DynamoDB.
      expect(loopback.requests()).toBe(requestsBefore + 1);
      expect(Number(await stateBytes())).toBeGreaterThanOrEqual('[]'.length);
    },
  );

  it('carries the SDK only when bundled', async () => {
    const bundled = await bundleFloor(join(directory, 'size-bundled'), 'bundled');
    const external = await bundleFloor(join(directory, 'size-external'), 'external');
    expect(bundled.bytes).toBeGreaterThan(100 * 1024);
    expect(external.bytes).toBeLessThan(10 * 1024);
    expect(readFileSync(external.file, 'utf8')).toContain('@aws-sdk/client-ssm');
  });
});

describe("the bench's deployed memory figure", () => {
  it('runs the synthesized payments bundle twice over the 100k body, reading it all each time', async () => {
    const assets = synthesize('telealert.yaml', join(directory, 'cdk.out'), true);
    const payments = assets.find((asset) => asset.source === 'payments');
    expect(payments).toBeDefined();
    const setup = await loopback.deployedSetup(payments?.file ?? '');
    const figure = await measureDeployedMemory(directory, Date.now(), 'Asia/Kolkata', setup);
    expect(figure.invocations.map((run) => run.records)).toEqual([PAYMENTS_COUNT, PAYMENTS_COUNT]);
    // The seeded first run left 10,000 stuck payments firing: the runs, on the wall clock a
    // minute later, owe only what crossed a threshold meanwhile (payments turning 30 minutes
    // old: some tens), never the 10,000 again. Owed stays owed here (no notifier runs), so the
    // second figure counts both runs'.
    expect(figure.invocations[1]?.owed).toBeLessThan(100);
    expect(figure.rssMb).toBeGreaterThan(0);
  });
});
