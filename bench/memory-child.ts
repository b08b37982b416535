/*
 * Run by bench/memory.ts in a fresh process: handles one generated 100k-payment body twice
 * (the first run and the steady state), as two invocations of the poller would, and prints its
 * peak RSS. Like the poller, each run reads the answer, parses it into records and lets go of
 * the text before evaluating; only the state carries over (the first run's notifications were
 * published and dropped). With `--baseline` it only loads the same modules, so the cost of the
 * body itself shows.
 */
import type { SourceState } from '../shared/engine/types';
import { evaluateBatch, readBody } from './processing';
import { benchConfig } from './rules';

const [, , mode, bodyFile, nowText] = process.argv;
if (mode !== '--baseline' && bodyFile && nowText) {
  const { readFileSync } = await import('node:fs');
  const config = benchConfig();
  const nowMs = Number(nowText);
  const poll = (atMs: number, previous?: SourceState) =>
    evaluateBatch(
      config,
      'payments',
      readBody(config, 'payments', readFileSync(bodyFile, 'utf8')),
      atMs,
      previous,
    ).state;
  poll(nowMs, poll(nowMs - 60_000));
}
process.stdout.write(String(process.resourceUsage().maxRSS * 1024));
