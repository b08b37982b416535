/*
 * Run by bench/memory.ts in a fresh process: handles one generated 100k-payment body (parse,
 * read, evaluate twice: the first run and the steady state) and prints its peak RSS. With
 * `--baseline` it only loads the same modules, so the cost of the body itself shows.
 */
import { processBody } from './processing';
import { benchConfig } from './rules';

const [, , mode, bodyFile, nowText] = process.argv;
if (mode !== '--baseline' && bodyFile && nowText) {
  const { readFileSync } = await import('node:fs');
  const config = benchConfig();
  const nowMs = Number(nowText);
  const text = readFileSync(bodyFile, 'utf8');
  // Only the state carries over, as between two Lambda runs: the first run's notifications
  // were published and dropped.
  const { state } = processBody(config, 'payments', text, nowMs - 60_000);
  processBody(config, 'payments', text, nowMs, state);
}
process.stdout.write(String(process.resourceUsage().maxRSS * 1024));
