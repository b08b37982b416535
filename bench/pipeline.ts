/*
 * The poller's pipeline over one answer, and nothing else: the memory child loads only this
 * (and the shared code it runs), as the Lambda bundle carries no generator or YAML parser.
 */
import { JsonArrayReader } from '../shared/api/json-array';
import type { Config, SourceName } from '../shared/config/types';
import { evaluate } from '../shared/engine/evaluate';
import type { SourceState } from '../shared/engine/types';
import { usedFields } from '../shared/engine/used-fields';
import { readBatch } from '../shared/records/parse';

/**
 * The size of the text chunks an answer arrives in: node:http reads its socket 64 KiB at a
 * time, and a plain body's chunks reach the transport as they were read.
 */
export const CHUNK_LENGTH = 64 * 1024;

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
 * The records of one answer, as the transport and the client read them: the chunks through
 * the transport's `JsonArrayReader`, then only the fields something reads.
 */
export function readBody(config: Config, source: SourceName, chunks: Iterable<string>) {
  const reader = new JsonArrayReader();
  for (const chunk of chunks) reader.push(chunk);
  return batchOf(config, source, reader);
}

/** The records of an answer whose every chunk went to `reader`. */
export function batchOf(config: Config, source: SourceName, reader: JsonArrayReader) {
  const body = reader.end();
  if (body.kind !== 'array') throw new Error(`the bench body is not a JSON array (${body.kind})`);
  return readBatch(source, body.rows, config.timezone, { fields: usedFields(config, source) });
}

/** The rules over one answer's records, as the runner runs them after a fetch. */
export function evaluateBatch(
  config: Config,
  source: SourceName,
  batch: ReturnType<typeof batchOf>,
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
