import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleQueue, type Loopback, startLoopback } from '../../bench/aws';
import { classifySeries, measureEmitted, tableBytes, templateCounts } from '../../bench/bill-runs';
import { METRIC_INVENTORY, PUBLISHED, seriesKey } from '../../shared/observability/metrics';

let loopback: Loopback;
let directory: string;

beforeAll(async () => {
  loopback = await startLoopback(readFileSync('telealert.yaml', 'utf8'));
  directory = await mkdtemp(join(process.cwd(), 'node_modules', '.cache-bill-e2e-'));
}, 120_000);

afterAll(async () => {
  await loopback?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe("the bench's bill", () => {
  it("reads the custom metrics the deployed handlers publish from what they print: the inventory's every-run series, nothing else", async () => {
    const emitted = await measureEmitted(loopback, directory, await createSampleQueue(), 1);
    const everyRun = METRIC_INVENTORY.filter((s) => s.published === PUBLISHED.everyRun).map((s) =>
      seriesKey(s.name, s.dimensions),
    );
    expect(emitted.series).toEqual([...everyRun].sort());
    expect(classifySeries(emitted.series).unknown).toEqual([]);
    const live = emitted.functions.find((f) => f.name === 'live_calls');
    // A scheduled invocation and one per queued sample of the shipped `samples: 4`.
    expect(live?.invocations).toBe(4);
    for (const name of ['live_calls', 'payments'] as const) {
      const figure = emitted.functions.find((f) => f.name === name);
      expect(figure?.bytesPerInvocation).toBeGreaterThan(0);
      expect(figure?.eventsPerInvocation).toBeGreaterThanOrEqual(2);
    }
    expect(await tableBytes(loopback.stack.tableName)).toBeGreaterThan(0);
  }, 120_000);

  it('counts the alarms, the dashboard and its log graphs, and the key the shipped stack creates', () => {
    expect(templateCounts('telealert.yaml', join(directory, 'cdk.out'))).toEqual({
      alarms: 11,
      alarmMetrics: 11,
      dashboards: 1,
      logWidgets: 7, // the "Who is on call" table: the shipped oncall channel pages a rotation
      kmsKeys: 1,
      scheduleRules: 3,
    });
    // A synth of the whole stack (nothing bundled) takes a minute on a loaded machine.
  }, 300_000);
});
