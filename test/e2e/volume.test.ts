import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, startLoopback } from '../../bench/aws';
import { synthesize } from '../../bench/synth';
import {
  measureVolume,
  VOLUME_COUNT,
  VOLUME_PAYMENTS_RULES,
  VOLUME_RULE,
  volumeRulesData,
} from '../../bench/volume';
import { MAX_ALERTS_PER_SOURCE } from '../../shared/engine/limit';

let loopback: Loopback;
let directory: string;

beforeAll(async () => {
  loopback = await startLoopback(readFileSync('telealert.yaml', 'utf8'));
  // Under node_modules, as the bench puts its bundles.
  directory = await mkdtemp(join(process.cwd(), 'node_modules', '.cache-volume-e2e-'));
});

afterAll(async () => {
  await loopback?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('The deployed payments function on moto, one rule matching 150,000 payments', () => {
  it('tracks its share with one too_many_alerts, commits, runs again, and the notifier delivers it all', async () => {
    const assets = synthesize('telealert.yaml', join(directory, 'cdk.out'), true);
    const payments = assets.find((asset) => asset.source === 'payments');
    expect(payments).toBeDefined();
    const setup = await loopback.deployedSetup(payments?.file ?? '', {
      table: 'volume-e2e-state',
      rules: volumeRulesData(),
    });
    const figure = await measureVolume(directory, Date.now(), 'Asia/Kolkata', setup);

    // The source's payments rules share its limit.
    const share = MAX_ALERTS_PER_SOURCE / VOLUME_PAYMENTS_RULES;
    const broad = figure.rules.find((rule) => rule.rule === VOLUME_RULE);
    expect(broad?.tracked).toBe(share);
    // Every payment the API sent is tracked or counted as not tracked (the generator's drift
    // leaves a few rows without an id or with a repeated one).
    expect(broad?.untracked).toBeLessThanOrEqual(VOLUME_COUNT - share);
    expect(broad?.untracked).toBeGreaterThan(0.99 * VOLUME_COUNT - share);
    expect(figure.invocations.map((run) => run.records)).toEqual([VOLUME_COUNT, VOLUME_COUNT]);
    // The first run committed every tracked alert and each rule's too_many_alerts for the
    // notifier; the second had little new to say about them.
    const trackedAll = figure.rules.reduce((sum, rule) => sum + rule.tracked, 0);
    expect(figure.invocations[0]?.owed).toBe(trackedAll + figure.limitAlerts);
    expect((figure.invocations[1]?.owed ?? 0) - (figure.invocations[0]?.owed ?? 0)).toBeLessThan(
      10,
    );
    // The notifier's round took all of it in and published its messages; nothing is left owed.
    expect(figure.notifier.taken).toBe(figure.invocations[1]?.owed);
    expect(figure.notifier.published).toBeGreaterThan(0);
    expect(figure.notifier.owedAfter).toBe(0);
    expect(figure.pass).toBe(true);
  });
});
