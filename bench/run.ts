/*
 * `npm run bench [-- --json]`: the figures of issue 6 and their budgets. Starts moto and the
 * simulator on loopback, synthesizes the stack twice (SDK bundled and external) into a scratch
 * directory under node_modules (so external bundles resolve @aws-sdk there, as on Lambda),
 * and removes all of it at the end. Prints a table, or one JSON object with `--json`.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { SourceName } from '../shared/config/types';
import { bareStartMs, createSampleQueue, measureCold, measureWarm, startLoopback } from './aws';
import { inOneInvocationMs, monthlyCost, PRICES } from './cost';
import { bundleFloor } from './floor';
import { type DeployedMemoryFigure, measureDeployedMemory, measureMemory } from './memory';
import { LIVE_CALLS_COUNT, measureProcessing, PAYMENTS_COUNT } from './processing';
import { benchConfig } from './rules';
import { round } from './stats';
import { synthesize } from './synth';

const RULES_FILE = 'telealert.yaml';
const RUNS = 5;
/**
 * The timings this shared machine spreads most (processing, cold starts) take more runs, so
 * their medians move less between two bench runs.
 */
const TIMING_RUNS = 11;
/** Processing runs are short (tens of milliseconds a body): 31 of them cost a few seconds. */
const PROCESSING_RUNS = 31;
const json = process.argv.includes('--json');
const log = (line: string) => {
  if (!json) process.stderr.write(`${line}\n`);
};

interface Budget {
  readonly name: string;
  readonly limit: string;
  readonly value: string;
  readonly pass: boolean;
}
const budgets: Budget[] = [];
function budget(name: string, value: number | string, limit: string, pass: boolean) {
  budgets.push({ name, value: String(value), limit, pass });
}

const scratch = join(process.cwd(), 'node_modules', '.cache', 'telealert-bench');
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const startedAt = performance.now();
const config = benchConfig(RULES_FILE);
const shipped = benchConfig(RULES_FILE, 0);
const nowMs = Date.now();

log('1/5 processing...');
const processing = [
  measureProcessing(config, 'payments', PAYMENTS_COUNT, nowMs, PROCESSING_RUNS),
  measureProcessing(config, 'live_calls', LIVE_CALLS_COUNT, nowMs, PROCESSING_RUNS),
];
for (const p of processing) budget(`processing ratio, ${p.body}`, p.ratio, '<= 2.0', p.ratio <= 2);

log('2/5 memory...');
const memory = await measureMemory(scratch, nowMs, config.timezone);
// In a 256 MB Lambda V8 runs under the heap limits the runtime sets: that peak is the one that
// has to fit (the unbounded one, printed above, only shows how lazily V8 collects without them).
budget(
  'peak RSS, 100k payments, first run + steady, client and engine (MB)',
  memory.lambdaHeapRssMb,
  '<= 200',
  memory.lambdaHeapRssMb <= 200,
);

log('3/5 bundles and cold start...');
const loopback = await startLoopback(readFileSync(RULES_FILE, 'utf8'));
let result: Record<string, unknown>;
try {
  const bare = bareStartMs(TIMING_RUNS * 2);
  const cold = [];
  const floor = [];
  let deployed: DeployedMemoryFigure | undefined;
  for (const sdk of ['bundled', 'external'] as const) {
    const assets = synthesize(RULES_FILE, join(scratch, `cdk.out-${sdk}`), sdk === 'bundled');
    const payments = assets.find((asset) => asset.source === 'payments');
    if (sdk === 'bundled' && payments !== undefined) {
      log('2/5 memory, the deployed payments function...');
      const setup = await loopback.deployedSetup(payments.file);
      deployed = await measureDeployedMemory(scratch, nowMs, config.timezone, setup);
      budget(
        'peak RSS, 100k payments, steady state, the deployed function (MB)',
        deployed.rssMb,
        '<= 200',
        deployed.rssMb <= 200,
      );
    }
    for (const asset of assets) {
      const figure = await measureCold(loopback, scratch, asset, sdk, TIMING_RUNS, bare);
      cold.push(figure);
      const limitKb = sdk === 'bundled' ? 350 : 120;
      const kb = round(figure.bytes / 1024, 1);
      budget(`bundle ${asset.source}, SDK ${sdk} (KB)`, kb, `<= ${limitKb}`, kb <= limitKb);
      budget(
        `cold start ${asset.source}, SDK ${sdk} (x bare node)`,
        figure.ratio,
        '<= 3.0',
        figure.ratio <= 3,
      );
    }
    // No budget: what the SDK clients and calls alone cost, under the pollers' figures.
    const floorAsset = await bundleFloor(join(scratch, `floor-${sdk}`), sdk);
    floor.push(await measureCold(loopback, scratch, floorAsset, sdk, TIMING_RUNS, bare));
  }

  log('4/5 warm runs...');
  const sampleQueueUrl = await createSampleQueue();
  const warm = [
    await measureWarm(loopback, scratch, 'live_calls', RUNS, sampleQueueUrl),
    await measureWarm(loopback, scratch, 'payments', RUNS),
  ];
  for (const w of warm) {
    budget(
      `API requests, ${w.source} warm run`,
      w.apiRequests,
      `= ${w.expectedApiRequests}`,
      w.apiRequests === w.expectedApiRequests,
    );
    budget(
      `SNS calls, ${w.source} (${w.notifications} notifications)`,
      w.snsCalls,
      `= ${w.expectedSnsCalls}`,
      w.snsCalls === w.expectedSnsCalls,
    );
    budget(`SSM calls, ${w.source} warm run`, w.ssmCalls, '= 0', w.ssmCalls === 0);
  }

  log('5/5 cost...');
  const memoryMb = 256;
  // A quiet state is still written once it is 10 minutes old (the runner's stateRefreshMs):
  // the warm runs, a few seconds apart, never reach that.
  const refreshWritesPerRun = (source: SourceName) =>
    Math.min(1, shipped.sources[source].everyMs / 600_000);
  const profile = (w: (typeof warm)[number]) => ({
    invocations: w.invocations,
    billedMs: w.billedMs,
    dynamodbReads: w.dynamodbReads,
    dynamodbWrites: Math.max(w.dynamodbWrites, refreshWritesPerRun(w.source)),
    snsPublishes: 0,
    // Its sends, then per queued sample the event source mapping's receive and delete.
    sqsRequests: w.sqsSends + 2 * (w.invocations - 1),
    sampleQueue: w.invocations > 1,
  });
  const cost = warm.map((w) =>
    monthlyCost(w.source, shipped.sources[w.source].everyMs, memoryMb, profile(w)),
  );
  const totalUsd = round(
    cost.reduce((sum, c) => sum + c.totalUsd, 0),
    4,
  );
  budget('monthly cost, default rules (USD)', totalUsd, '<= 0.50', totalUsd <= 0.5);
  // For comparison: the same samples taken by one invocation that waits for each slot.
  const alternatives = warm
    .filter((w) => w.source === 'live_calls')
    .map((w) => {
      const perSample = w.billedMs / Math.max(1, w.invocations);
      return monthlyCost('live_calls, one invocation waits', 60_000, memoryMb, {
        ...profile(w),
        invocations: 1,
        billedMs: inOneInvocationMs(shipped, perSample * w.samples),
        sqsRequests: 0,
        sampleQueue: false,
      });
    });

  result = {
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      platform: `${process.platform}-${process.arch}`,
    },
    processing,
    memory: { ...memory, deployed },
    coldStart: { bareNodeMs: round(bare, 1), functions: cold, floor },
    warm,
    cost: { prices: PRICES, memoryMb, sources: cost, totalUsd, alternatives },
    budgets,
    benchSeconds: 0,
  };
} finally {
  await loopback.stop();
  rmSync(scratch, { recursive: true, force: true });
}
result.benchSeconds = round((performance.now() - startedAt) / 1000, 1);

if (json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  process.stdout.write(`${renderTables(result)}\n`);
}
process.exitCode = budgets.every((b) => b.pass) ? 0 : 1;

function table(title: string, rows: readonly Record<string, unknown>[]): string {
  const first = rows[0];
  if (!first) return `${title}\n  (none)`;
  const columns = Object.keys(first).filter((key) => typeof first[key] !== 'object');
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((cell) => (cell[i] ?? '').length)),
  );
  const line = (values: readonly string[]) =>
    `  ${values.map((value, i) => value.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  return [title, line(columns), ...cells.map(line)].join('\n');
}

function renderTables(r: Record<string, unknown>): string {
  const cold = r.coldStart as {
    bareNodeMs: number;
    functions: Record<string, unknown>[];
    floor: Record<string, unknown>[];
  };
  const cost = r.cost as { sources: Record<string, unknown>[]; totalUsd: number };
  const { alternatives } = r.cost as { alternatives: Record<string, unknown>[] };
  return [
    `machine: ${JSON.stringify(r.machine)}`,
    '',
    table(
      '1. processing (median ms: JSON.parse vs parse + read + evaluate)',
      processing as unknown as Record<string, unknown>[],
    ),
    '',
    table('2. memory (MB): the client and engine, a first run and the steady state', [
      memory as unknown as Record<string, unknown>,
    ]),
    table(
      '   the deployed payments function, SDK and runner included, two steady-state runs',
      (r.memory as { deployed?: DeployedMemoryFigure }).deployed
        ? [deployedRow((r.memory as { deployed: DeployedMemoryFigure }).deployed)]
        : [],
    ),
    '',
    table(`3. cold start (bare node -e 0: ${cold.bareNodeMs} ms)`, cold.functions),
    table(
      "   floor: the SDK clients and the first run's calls alone (bench/floor/handler.ts)",
      cold.floor,
    ),
    '',
    table('4. warm run (median ms, calls in one run)', r.warm as Record<string, unknown>[]),
    '',
    table(
      `5. monthly cost, USD (prices ${PRICES.region}, ${PRICES.takenOn}; total ${cost.totalUsd})`,
      [...cost.sources, ...alternatives],
    ),
    '',
    table(
      'budgets',
      budgets.map((b) => ({ ...b, pass: b.pass ? 'PASS' : 'FAIL' })),
    ),
    '',
    `bench took ${r.benchSeconds} s`,
  ].join('\n');
}

function deployedRow(figure: DeployedMemoryFigure): Record<string, unknown> {
  return {
    body: figure.body,
    rssMb: figure.rssMb,
    runsMs: figure.invocations.map((run) => run.ms).join(', '),
    sent: figure.invocations.map((run) => run.sent).join(', '),
    lambdaHeapFlags: figure.lambdaHeapFlags,
  };
}
