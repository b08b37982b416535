/*
 * Run by bench/memory.ts in a fresh process: handles one generated 100k-payment body twice
 * (the first run and the steady state), as two invocations of the poller would, and prints its
 * peak RSS. Like the poller, each run reads the answer as text chunk by chunk (the transport's
 * way with a plain body), parses it into records and lets go of the text before evaluating;
 * only the state carries over (the first run's notifications were
 * published and dropped). With `--baseline` it only loads the same modules, so the cost of the
 * body itself shows. Usage: `--body <body.json> <nowMs> <rules.json>`.
 */
import { loadConfigJsonFile } from '../shared/config/validate';
import type { SourceState } from '../shared/engine/types';
import { evaluateBatch, readBody } from './pipeline';

const [, , mode, bodyFile, nowText, rulesFile] = process.argv;
if (mode !== '--baseline' && bodyFile && nowText && rulesFile) {
  const { createReadStream } = await import('node:fs');
  const read = async () => {
    let text = '';
    for await (const chunk of createReadStream(bodyFile, { encoding: 'utf8' })) text += chunk;
    return text;
  };
  // The rules as the Lambda reads them: JSON, through the same loader (no YAML parser).
  const config = loadConfigJsonFile(rulesFile);
  const nowMs = Number(nowText);
  const poll = async (atMs: number, previous?: SourceState) =>
    evaluateBatch(config, 'payments', readBody(config, 'payments', await read()), atMs, previous)
      .state;
  await poll(nowMs, await poll(nowMs - 60_000));
}
process.stdout.write(String(process.resourceUsage().maxRSS * 1024));
