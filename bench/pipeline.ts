/*
 * The poller's pipeline over one answer, and nothing else: the memory child loads only this
 * (and the shared code it runs), as the Lambda bundle carries no generator or YAML parser.
 */
import type { Config, SourceName } from '../shared/config/types';
import { evaluate } from '../shared/engine/evaluate';
import type { SourceState } from '../shared/engine/types';
import { usedFields } from '../shared/engine/used-fields';
import { readBatch } from '../shared/records/parse';

/** The records of one answer, as the client reads them: only the fields something reads. */
export function readBody(config: Config, source: SourceName, text: string) {
  return readBatch(source, JSON.parse(text), config.timezone, {
    fields: usedFields(config, source),
  });
}

/** The rules over one answer's records, as the runner runs them after a fetch. */
export function evaluateBatch(
  config: Config,
  source: SourceName,
  batch: ReturnType<typeof readBody>,
  nowMs: number,
  previous?: SourceState,
) {
  return evaluate(
    config,
    source,
    { ok: true, records: batch.records, skipped: batch.skipped },
    nowMs,
    previous,
  );
}
