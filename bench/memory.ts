import { spawn } from 'node:child_process';
import { createReadStream, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { POLLER_ENVIRONMENT } from '../infra/poller';
import { bundleLikePollers } from './bundle';
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
async function bundleChild(directory: string): Promise<string> {
  const file = join(directory, 'memory-child.mjs');
  await bundleLikePollers('bench/memory-child.ts', file, 'bundled');
  return file;
}

/** Peak RSS of the child run with `args`, in MB; asynchronous, as the API it asks is in this process. */
async function childRss(
  script: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<number> {
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], {
    env: { ...process.env, ...POLLER_ENVIRONMENT },
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
  if (code !== 0) throw new Error(`memory child failed (${code}): ${stderr.slice(-2000)}`);
  return Number(stdout) / 1024 / 1024;
}

const TOKEN = 'bench-memory-token';

/**
 * The API's payments endpoint on loopback: `file` streamed as it is read from disk, in the
 * chunks a socket carries, to the bench's bearer token only.
 */
async function serveBody(file: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"message":"bad token"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
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
 * Peak RSS (`process.resourceUsage().maxRSS`) of a fresh `node` process, running the bundled
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
  writeFileSync(rules, JSON.stringify(benchConfigData()));
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
