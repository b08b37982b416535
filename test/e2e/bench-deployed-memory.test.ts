import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, startLoopback } from '../../bench/aws';
import { measureDeployedMemory } from '../../bench/memory';
import { PAYMENTS_COUNT } from '../../bench/processing';
import { synthesize } from '../../bench/synth';

let loopback: Loopback;
let directory: string;

beforeAll(async () => {
  loopback = await startLoopback(readFileSync('telealert.yaml', 'utf8'));
  directory = await mkdtemp(join(process.cwd(), 'node_modules', '.cache-deployed-memory-'));
});

afterAll(async () => {
  await loopback?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe("the bench's deployed memory figure", () => {
  it('runs the synthesized payments bundle twice over the 100k body, reading it all each time', async () => {
    const assets = synthesize('telealert.yaml', join(directory, 'cdk.out'), true);
    const payments = assets.find((asset) => asset.source === 'payments');
    expect(payments).toBeDefined();
    const setup = await loopback.deployedSetup(payments?.file ?? '');
    const figure = await measureDeployedMemory(directory, Date.now(), 'Asia/Kolkata', setup);
    expect(figure.invocations.map((run) => run.records)).toEqual([PAYMENTS_COUNT, PAYMENTS_COUNT]);
    // The seeded first run left the stuck payments firing: the second run owes nothing new.
    expect(figure.invocations[1]?.sent).toBe(0);
    expect(figure.rssMb).toBeGreaterThan(0);
  });
});
