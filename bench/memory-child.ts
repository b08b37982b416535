/*
 * Run by bench/memory.ts in a fresh process: handles one generated 100k-payment body twice
 * (the first run and the steady state), as two invocations of the poller would, and prints its
 * peak RSS. Like the poller, each run reads the answer 64 KiB of text at a time through the
 * transport's `JsonArrayReader` into the client's `BatchReader` (whole records parsed and their
 * identities read as they come, never the whole text), then evaluates; only the state carries over (the first run's notifications were published
 * and dropped), and after each run the handler's collection of a large run's garbage (under
 * `--expose-gc`, as Lambda starts node). With `--baseline` it only loads the same modules, so
 * the cost of the body itself shows. Usage: `--body <body.json> <nowMs> <rules.json>`.
 */

import { collectAfterLargeRun } from '../functions/heap';
import { loadConfigJsonFile } from '../shared/config/validate';
import type { SourceState } from '../shared/engine/types';
import { answerReader, CHUNK_LENGTH, evaluateBatch } from './pipeline';

const [, , mode, bodyFile, nowText, rulesFile] = process.argv;
if (mode !== '--baseline' && bodyFile && nowText && rulesFile) {
  const { createReadStream } = await import('node:fs');
  const read = async () => {
    const reader = answerReader(config, 'payments');
    const stream = createReadStream(bodyFile, { encoding: 'utf8', highWaterMark: CHUNK_LENGTH });
    for await (const chunk of stream) reader.body.push(chunk as string);
    return reader;
  };
  // The rules as the Lambda reads them: JSON, through the same loader (no YAML parser).
  const config = loadConfigJsonFile(rulesFile);
  const nowMs = Number(nowText);
  const poll = async (atMs: number, previous?: SourceState) => {
    // Ended by the caller, as before the pieces went to a BatchReader. Where the read ends
    // moves the peak: ended inside `read`, V8's collections fell elsewhere and the peak was
    // 181-207 MB over a dozen runs (README, Performance).
    const batch = (await read()).end();
    const { state } = evaluateBatch(config, 'payments', batch, atMs, previous);
    return { state, records: batch.records.length };
  };
  // One invocation: the run, then what the handler does once it has returned.
  const invoke = async (atMs: number, previous?: SourceState) => {
    const { state, records } = await poll(atMs, previous);
    collectAfterLargeRun(records, globalThis.gc);
    return state;
  };
  await invoke(nowMs, await invoke(nowMs - 60_000));
}
process.stdout.write(String(process.resourceUsage().maxRSS * 1024));
