import type { SourceState } from '../shared/engine/types';
import type { Config, SourceName } from '../shared/types/config';
import { generateLiveCalls, generatePayments } from '../simulator/generate';
import { chunksOf, evaluateBatch, readBody } from './pipeline';
import { median, round, timeMs } from './stats';

export const PAYMENTS_COUNT = 100_000;
export const LIVE_CALLS_COUNT = 20_000;
const SEED = 6;
const STEADY_GAP_MS = 60_000;
const WARM_UP_RUNS = 10;

export interface ProcessingFigure {
  readonly body: string;
  readonly records: number;
  readonly bytes: number;
  readonly runs: number;
  readonly jsonParseMs: number;
  readonly pipelineMs: number;
  readonly ratio: number;
  /** The ratios of single runs (a pipeline over the bare parse just before it): `low-high`. */
  readonly ratioRange: string;
  readonly notifications: number;
}

/** A response body as the API would send it: the generated records, drift included. */
export function bodyText(source: SourceName, count: number, nowMs: number, zone: string): string {
  const records =
    source === 'payments'
      ? generatePayments(count, SEED, nowMs, zone)
      : generateLiveCalls(count, SEED, nowMs, zone);
  return JSON.stringify(records);
}

/**
 * What one poll of an answer costs the poller: parse its chunks as they come, read every
 * record, run every rule.
 */
export function processBody(
  config: Config,
  source: SourceName,
  chunks: readonly string[],
  nowMs: number,
  previous?: SourceState,
) {
  return evaluateBatch(config, source, readBody(config, source, chunks), nowMs, previous);
}

/**
 * Median of `runs` timings of the whole pipeline against a bare `JSON.parse` of the same bytes,
 * interleaved so both see the same machine noise. The pipeline runs in the steady state: the
 * previous state is what one evaluation a minute earlier left (firing alerts already known),
 * as on every run but a container's first.
 */
export function measureProcessing(
  config: Config,
  source: SourceName,
  count: number,
  nowMs: number,
  runs: number,
): ProcessingFigure {
  const text = bodyText(source, count, nowMs, config.timezone);
  // The chunks the network would deliver; the bare parse reads the same bytes as one text.
  const chunks = chunksOf(text);
  const warmup = processBody(config, source, chunks, nowMs - STEADY_GAP_MS);
  const previous = warmup.state;
  // A poller's container stays warm between runs: its code is optimised by the time it polls
  // again. A few unmeasured runs bring V8 there, so the median is not a warm-up figure.
  for (let run = 0; run < WARM_UP_RUNS; run += 1) {
    JSON.parse(text);
    processBody(config, source, chunks, nowMs, previous);
  }
  const records = (JSON.parse(text) as unknown[]).length;
  const parseTimes: number[] = [];
  const pipelineTimes: number[] = [];
  let notifications = 0;
  for (let run = 0; run < runs; run += 1) {
    parseTimes.push(timeMs(() => JSON.parse(text)));
    pipelineTimes.push(
      timeMs(() => {
        notifications = processBody(config, source, chunks, nowMs, previous).notifications.length;
      }),
    );
  }
  const jsonParseMs = median(parseTimes);
  const pipelineMs = median(pipelineTimes);
  return {
    body: `${count / 1000}k ${source === 'payments' ? 'payments' : 'live calls'}`,
    records,
    bytes: Buffer.byteLength(text),
    runs,
    jsonParseMs: round(jsonParseMs),
    pipelineMs: round(pipelineMs),
    ratio: round(pipelineMs / jsonParseMs),
    ratioRange: ratioRange(parseTimes, pipelineTimes),
    notifications,
  };
}

/** Each run's ratio (the two timings were taken back to back), lowest and highest. */
function ratioRange(parseTimes: readonly number[], pipelineTimes: readonly number[]) {
  const ratios = pipelineTimes.map((ms, run) => ms / (parseTimes[run] ?? Number.NaN));
  return `${round(Math.min(...ratios))}-${round(Math.max(...ratios))}`;
}
