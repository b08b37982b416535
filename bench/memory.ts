import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyText, PAYMENTS_COUNT } from './processing';

export interface MemoryFigure {
  readonly body: string;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
}

function childRss(args: readonly string[]): number {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'memory-child.ts'), ...args],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
  return Number(child.stdout) / 1024 / 1024;
}

/**
 * Peak RSS (`process.resourceUsage().maxRSS`) of a fresh process that reads the 100k-payment
 * body from a file and runs it through the poller's pipeline twice, next to the same process
 * doing nothing (node, tsx and the modules, which the Lambda bundle loads lighter).
 */
export function measureMemory(directory: string, nowMs: number, zone: string): MemoryFigure {
  const file = join(directory, 'payments-100k.json');
  writeFileSync(file, bodyText('payments', PAYMENTS_COUNT, nowMs, zone));
  return {
    body: '100k payments',
    peakRssMb: Math.round(childRss(['--body', file, String(nowMs)])),
    baselineRssMb: Math.round(childRss(['--baseline'])),
  };
}
