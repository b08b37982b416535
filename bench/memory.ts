import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { POLLER_NODE_OPTIONS } from '../infra/poller';
import { bodyText, PAYMENTS_COUNT } from './processing';
import { benchConfigData } from './rules';

export interface MemoryFigure {
  readonly body: string;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
  /** The same run under the V8 heap limits the Lambda Node.js runtime sets for 256 MB. */
  readonly lambdaHeapRssMb: number;
  readonly lambdaHeapFlags: string;
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
 * The child as one bundled file run by a plain `node`, as the Lambda runs its bundle: under
 * tsx the same process carried about 80 MB of compiler and loader the function never loads.
 */
function bundleChild(directory: string): string {
  const file = join(directory, 'memory-child.mjs');
  buildSync({
    entryPoints: [join(import.meta.dirname, 'memory-child.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'error',
    // With its map beside it, as the pollers' bundles (read under POLLER_NODE_OPTIONS).
    sourcemap: true,
    sourcesContent: false,
    // As the Lambda bundles: some CommonJS dependencies require node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module';const require=createRequire(import.meta.url);",
    },
  });
  return file;
}

function childRss(
  script: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): number {
  const child = spawnSync(process.execPath, [...nodeFlags, script, ...args], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
  return Number(child.stdout) / 1024 / 1024;
}

/**
 * Peak RSS (`process.resourceUsage().maxRSS`) of a fresh `node` process, running the bundled
 * pipeline, that reads the 100k-payment body from a file and runs it through the poller's
 * pipeline twice, next to the same process doing nothing (node and the bundle loaded), and
 * once more under the heap limits a 256 MB Lambda gives V8 (V8 collects harder near a limit,
 * so the peak there is what the function would see).
 */
export function measureMemory(directory: string, nowMs: number, zone: string): MemoryFigure {
  const file = join(directory, 'payments-100k.json');
  writeFileSync(file, bodyText('payments', PAYMENTS_COUNT, nowMs, zone));
  const rules = join(directory, 'bench-rules.json');
  writeFileSync(rules, JSON.stringify(benchConfigData()));
  const script = bundleChild(directory);
  const args = ['--body', file, String(nowMs), rules];
  const flags = [...lambdaHeapFlags(256), POLLER_NODE_OPTIONS];
  return {
    body: '100k payments',
    peakRssMb: Math.round(childRss(script, args)),
    baselineRssMb: Math.round(childRss(script, ['--baseline'])),
    lambdaHeapRssMb: Math.round(childRss(script, args, flags)),
    lambdaHeapFlags: flags.join(' '),
  };
}
