/*
 * Run by bench/memory.ts in a fresh process: handles one generated 100k-payment answer twice
 * (the first run and the steady state), as two invocations of the poller would, and prints its
 * peak RSS. Like the poller, each run asks the API through the `TelephonyClient` and its
 * node:http transport (here a loopback server in the bench's process serving the body), which
 * parses the answer a piece of whole records at a time as it streams in and hands each piece
 * to the client's `BatchReader` (never the whole text), then evaluates; only the state carries
 * over (the first run's notifications were published and dropped), and after each run the
 * handler's collection of a large run's garbage (under `--expose-gc`, as Lambda starts node).
 * With `--baseline` it only loads the same modules, so the cost of the body itself shows.
 * Usage: `--api <baseUrl> <token> <nowMs> <rules.json>`.
 */

import { collectAfterLargeRun } from '../functions/heap';
import { TelephonyClient } from '../shared/api/client';
import { readConfigOverride } from '../shared/config/embedded';
import type { SourceState } from '../shared/engine/types';
import { usedFields } from '../shared/engine/used-fields';
import { peakRssBytes } from './peak-rss';
import { evaluateBatch } from './pipeline';

const [, , mode, baseUrl, token, nowText, rulesFile] = process.argv;
if (mode === '--api' && baseUrl && token && nowText && rulesFile) {
  // The rules as the Lambda reads them: validated at synth, read as JSON (no YAML, no zod).
  const config = readConfigOverride(rulesFile);
  const nowMs = Number(nowText);
  const client = new TelephonyClient({
    baseUrl,
    tokenSource: { get: async () => token, invalidate: () => {} },
    timeZone: config.timezone,
    timeoutMs: 60_000,
    maxAttempts: 1,
  });
  const fields = usedFields(config, 'payments');
  const poll = async (atMs: number, previous?: SourceState) => {
    const batch = await client.payments({}, { deadlineMs: Date.now() + 60_000, fields });
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
process.stdout.write(String(peakRssBytes()));
