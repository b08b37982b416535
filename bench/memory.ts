import { spawn } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStateStore } from '../functions/adapters/dynamodb-state';
import { POLLER_ENVIRONMENT } from '../infra/poller';
import { writeEmbeddedConfig } from '../shared/config/embedded';
import { validateConfig } from '../shared/config/validate';
import { MAX_HELD_WINDOW_MS } from '../shared/engine/held';
import type { RunSummary } from '../shared/runner/types';
import { parseApiTimestamp } from '../shared/time/zone';
import { bundleLikePollers } from './bundle';
import { chunksOf, evaluateBatch, readBody } from './pipeline';
import { bodyText, PAYMENTS_COUNT } from './processing';
import { benchConfigData } from './rules';

export interface MemoryFigure {
  readonly body: string;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
  /** The same run under the V8 heap limits the Lambda Node.js runtime sets for 256 MB. */
  readonly lambdaHeapRssMb: number;
  readonly lambdaHeapFlags: string;
  /** The pollers' environment every child runs with (`POLLER_ENVIRONMENT`), as deployed. */
  readonly environment: string;
}

/**
 * The flags the Lambda Node.js runtime's bootstrap starts node with: `--expose-gc`, and heap
 * sizes derived from the function's memory: new space a tenth of it, half of that per
 * semi-space, old space the rest. For 256 MB: `--max-semi-space-size=12
 * --max-old-space-size=231`. Read from published copies of the runtime's `bootstrap` script,
 * not from AWS documentation.
 */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

/**
 * The child as one bundled file run by a plain `node`, bundled as the pollers are, as the
 * Lambda runs its bundle: under tsx the same process carried about 80 MB of compiler and
 * loader the function never loads.
 */
export async function bundleChild(directory: string): Promise<string> {
  const file = join(directory, 'memory-child.mjs');
  await bundleLikePollers('bench/memory-child.ts', file, 'bundled');
  return file;
}

/** Peak RSS of the child run with `args`, in MB. */
export async function childRss(
  script: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<number> {
  return Number(await runNode([...nodeFlags, script, ...args], POLLER_ENVIRONMENT)) / 1024 / 1024;
}

/**
 * What a fresh `node` with `args` and `environment` (over this process's) prints; asynchronous,
 * as the API it asks lives in this process.
 */
async function runNode(
  args: readonly string[],
  environment: Readonly<Record<string, string>>,
): Promise<string> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`node failed (${code}): ${stderr.slice(-2000)}`);
  return stdout;
}

export const TOKEN = 'bench-memory-token';

/**
 * The API's payments endpoint on loopback: `file` streamed as it is read from disk, in the
 * chunks a socket carries, to the bearer `token` only. With `zone`, a narrow window (at most
 * `MAX_HELD_WINDOW_MS`: what the poller asks around firing payments older than the lookback)
 * is answered as the API would, with the payments made in it only, not the whole body again.
 */
export async function serveBody(
  file: string,
  token = TOKEN,
  zone?: string,
): Promise<{ url: string; close(): Promise<void> }> {
  let rows: { created_at?: unknown }[] | undefined;
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"message":"bad token"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    const query = new URL(request.url ?? '/', 'http://loopback').searchParams;
    const fromMs = zone && parseApiTimestamp(query.get('from_date') ?? '', zone);
    const toMs = zone && parseApiTimestamp(query.get('to_date') ?? '', zone);
    if (zone && fromMs && toMs && toMs - fromMs <= MAX_HELD_WINDOW_MS) {
      rows ??= JSON.parse(readFileSync(file, 'utf8')) as { created_at?: unknown }[];
      const inWindow = rows.filter((row) => {
        const at = parseApiTimestamp(String(row.created_at ?? ''), zone);
        return at !== undefined && at >= fromMs && at <= toMs;
      });
      response.end(JSON.stringify(inWindow));
      return;
    }
    pipeline(createReadStream(file), response, () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Peak RSS (its own `VmHWM`, `peak-rss.ts`) of a fresh `node` process, running the bundled
 * client and pipeline, that asks the API (a loopback server serving the 100k-payment body from
 * a file) and runs the answer through the poller's pipeline twice, next to the same process
 * doing nothing (node and the bundle loaded), and once more under the heap limits a 256 MB
 * Lambda gives V8 (V8 collects harder near a limit, so the peak there is what the function
 * would see).
 */
export async function measureMemory(
  directory: string,
  nowMs: number,
  zone: string,
): Promise<MemoryFigure> {
  const file = join(directory, 'payments-100k.json');
  writeFileSync(file, bodyText('payments', PAYMENTS_COUNT, nowMs, zone));
  const rules = join(directory, 'bench-rules.json');
  writeEmbeddedConfig(rules, validateConfig(benchConfigData(), 'bench-rules.json'));
  const script = await bundleChild(directory);
  const api = await serveBody(file);
  try {
    const args = ['--api', api.url, TOKEN, String(nowMs), rules];
    const flags = lambdaHeapFlags(256);
    return {
      body: '100k payments',
      peakRssMb: Math.round(await childRss(script, args)),
      baselineRssMb: Math.round(await childRss(script, ['--baseline'])),
      lambdaHeapRssMb: Math.round(await childRss(script, args, flags)),
      lambdaHeapFlags: flags.join(' '),
      environment: Object.entries(POLLER_ENVIRONMENT)
        .map(([name, value]) => `${name}=${value}`)
        .join(' '),
    };
  } finally {
    await api.close();
  }
}

/** The deployed payments function over the 100k body: what it peaked at and what it did. */
export interface DeployedMemoryFigure {
  readonly body: string;
  /** Peak RSS of the process, under the 256 MB function's heap limits and environment. */
  readonly rssMb: number;
  /**
   * Per invocation: records read, notifications owed after it (committed for the notifier, as
   * deployed: the poller sends nothing itself), wall time.
   */
  readonly invocations: readonly { records: number; owed: number; ms: number }[];
  readonly lambdaHeapFlags: string;
}

/** What the bench gives `measureDeployedMemory`: the AWS side and the API's token. */
export interface DeployedMemorySetup {
  /** The synthesized payments bundle (`index.mjs`, SDK bundled). */
  readonly bundle: string;
  /** The variables the stack gives the function, besides `POLLER_ENVIRONMENT` and the rules. */
  readonly environment: Readonly<Record<string, string>>;
  /** The validated rules' data; `api.baseUrl` is pointed at the bench's API. */
  readonly rules: Record<string, unknown>;
  /** The bearer token the function reads from SSM. */
  readonly token: string;
  /** The state table the function's environment names. */
  readonly table: string;
}

/**
 * How long before the bench's `nowMs` the seeded first run is evaluated; the function's own
 * runs follow on the real clock, some seconds after `nowMs`.
 */
const STEADY_GAP_MS = 60_000;

/**
 * Peak RSS of a fresh `node` running the deployed payments bundle as Lambda runs it (the
 * 256 MB function's heap limits, `--expose-gc`, the pollers' environment), invoked twice in a
 * row as a warm container is, in the steady state: the state a first run left (10,000 stuck
 * payments firing) is in DynamoDB (moto), and each run loads it, reads the 100k body from a
 * loopback API, evaluates, compares and commits. All the poller does, the SDK, the runner and
 * the state's compression included; the first run's 10,000 notifications are not (moto takes
 * minutes to store and publish them: `measureMemory`'s child counts them, without the SDK).
 */
export async function measureDeployedMemory(
  directory: string,
  nowMs: number,
  zone: string,
  setup: DeployedMemorySetup,
): Promise<DeployedMemoryFigure> {
  const file = join(directory, 'payments-100k-deployed.json');
  const text = bodyText('payments', PAYMENTS_COUNT, nowMs, zone);
  writeFileSync(file, text);
  // The first run, here: its 10,000 notifications as delivered (moto takes minutes to store
  // and publish them), its state committed as the function would have left it.
  const config = validateConfig(setup.rules, 'bench-rules.json');
  const { state } = evaluateBatch(
    config,
    'payments',
    readBody(config, 'payments', chunksOf(text)),
    nowMs - STEADY_GAP_MS,
  );
  const store = new DynamoStateStore({ client: new DynamoDBClient({}), tableName: setup.table });
  const stored = await store.load('payments');
  await store.commit('payments', stored.revision, state, []);
  const api = await serveBody(file, setup.token, zone);
  try {
    const { rssMb, runs, flags } = await runDeployed(directory, setup, api.url, [
      'steady-1',
      'steady-2',
    ]);
    const failed = runs.find((run) => run.failures > 0);
    if (failed) throw new Error(`the deployed function's run failed: ${JSON.stringify(failed)}`);
    return {
      body: '100k payments',
      rssMb,
      invocations: runs.map(({ records, owedLeft, ms }) => ({ records, owed: owedLeft, ms })),
      lambdaHeapFlags: flags,
    };
  } finally {
    await api.close();
  }
}

/**
 * Runs the deployed bundle of `setup` in a fresh `node` as Lambda runs it (the 256 MB
 * function's heap limits, `--expose-gc`, the pollers' environment), one invocation per id in a
 * row as a warm container takes them, its rules pointed at the API at `apiUrl`: each
 * invocation's summary and time, and the process's own peak RSS.
 */
export async function runDeployed(
  directory: string,
  setup: DeployedMemorySetup,
  apiUrl: string,
  ids: readonly string[],
): Promise<{
  rssMb: number;
  runs: (RunSummary & { ms: number })[];
  flags: string;
  /** The validated rules the runs read (`TELEALERT_CONFIG_FILE`). */
  rulesFile: string;
}> {
  const rulesFile = join(directory, `deployed-rules-${ids[0] ?? 'run'}.json`);
  const api = setup.rules.api as Record<string, unknown>;
  // Validated and written as synth ships it, the zone's offsets with it (synth's year: now).
  const rules = { ...setup.rules, api: { ...api, baseUrl: apiUrl } };
  writeEmbeddedConfig(
    rulesFile,
    validateConfig(rules, 'bench-rules.json'),
    new Date().getUTCFullYear(),
  );
  const script = `
const { handler } = await import(${JSON.stringify(`file://${setup.bundle}`)});
const context = { awsRequestId: 'memory', functionName: 'bench', getRemainingTimeInMillis: () => 290000 };
const runs = [];
for (const id of ${JSON.stringify(ids)}) {
  const started = performance.now();
  const summary = await handler({ id }, context);
  runs.push({ ...summary, ms: Math.round(performance.now() - started) });
}
// This process's own peak, as bench/peak-rss.ts reads it (maxRSS would carry the bench's).
let rss = process.resourceUsage().maxRSS * 1024;
try {
  const status = (await import('node:fs')).readFileSync('/proc/self/status', 'utf8');
  const kib = /^VmHWM:\\s+(\\d+) kB$/m.exec(status)?.[1];
  if (kib !== undefined) rss = Number(kib) * 1024;
} catch {}
process.stdout.write(JSON.stringify({ rss, runs }), () => process.exit(0));`;
  const flags = lambdaHeapFlags(256);
  const out = await runNode([...flags, '--input-type=module', '-e', script], {
    ...setup.environment,
    ...POLLER_ENVIRONMENT,
    TELEALERT_CONFIG_FILE: rulesFile,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const { rss, runs } = JSON.parse(out) as { rss: number; runs: (RunSummary & { ms: number })[] };
  return { rssMb: Math.round(rss / 1024 / 1024), runs, flags: flags.join(' '), rulesFile };
}
