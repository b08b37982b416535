/*
 * The poller's pipeline over one answer, and nothing else: the memory child loads only this
 * and the API client (and the shared code they run), as the Lambda bundle carries no
 * generator or YAML parser.
 */
import { JsonArrayReader, rowSink } from '../shared/api/json-array';
import { evaluate } from '../shared/engine/evaluate';
import type { SourceState } from '../shared/engine/types';
import { usedFields } from '../shared/engine/used-fields';
import { BatchReader } from '../shared/records/parse';
import type { Config, SourceName } from '../shared/types/config';

/**
 * The size of the text chunks an answer arrives in: node:http reads its socket 64 KiB at a
 * time, and a plain body's chunks reach the transport as they were read.
 */
const CHUNK_LENGTH = 64 * 1024;

/** `text` as the transport receives it: chunks of `CHUNK_LENGTH`, each its own string. */
export function chunksOf(text: string): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += CHUNK_LENGTH) {
    // Copied, so no chunk is a slice that keeps the whole text alive.
    chunks.push(Buffer.from(text.slice(at, at + CHUNK_LENGTH), 'utf8').toString('utf8'));
  }
  return chunks;
}

/**
 * One answer's reader, wired as the client wires the transport's: the text goes to a
 * `JsonArrayReader` chunk by chunk (`body.push`), each piece of rows it parses goes to the
 * client's `BatchReader`, which reads only the fields something reads; `end` gives the batch.
 */
function answerReader(config: Config, source: SourceName) {
  const rows = new BatchReader(source, config.timezone, { fields: usedFields(config, source) });
  const body = new JsonArrayReader(rowSink(source, rows));
  return {
    body,
    end() {
      const whole = body.end();
      if (whole.kind !== 'array')
        throw new Error(`the bench body is not a JSON array (${whole.kind})`);
      return rows.end(whole.rows);
    },
  };
}

/** The records of one answer arriving in `chunks`, as the transport and the client read them. */
export function readBody(config: Config, source: SourceName, chunks: Iterable<string>) {
  const reader = answerReader(config, source);
  for (const chunk of chunks) reader.body.push(chunk);
  return reader.end();
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
