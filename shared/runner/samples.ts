import { samplesPerRun } from '../config/sources';
import type { QueuedSample } from '../ports/types';
import type { Config, SourceName } from '../types/config';

/** SQS's longest message delay, in seconds. */
export const MAX_DELAY_SECONDS = 900;

/**
 * Time between two samples of a source's run (`every / samples`); payments, and a source no
 * rule reads, take one.
 */
export function sampleIntervalMs(config: Config, source: SourceName): number {
  return config.sources[source].everyMs / samplesPerRun(config, source);
}

/**
 * The samples after the first of a run starting at `startMs`, each due at its slot: what a
 * scheduled invocation hands to the sample queue. Empty for payments, for one sample and for a
 * source no rule reads.
 */
export function laterSamples(config: Config, source: SourceName, startMs: number): QueuedSample[] {
  const intervalMs = sampleIntervalMs(config, source);
  const later: QueuedSample[] = [];
  for (let sample = 1; sample < samplesPerRun(config, source); sample += 1) {
    later.push({ source, sample, dueAtMs: startMs + sample * intervalMs });
  }
  return later;
}

/** Whole seconds from `nowMs` until the sample is due, within what a queue can delay. */
export function delaySeconds(sample: QueuedSample, nowMs: number): number {
  const seconds = Math.round((sample.dueAtMs - nowMs) / 1000);
  return Math.min(Math.max(seconds, 0), MAX_DELAY_SECONDS);
}

/** Whether a queued sample that arrived at `nowMs` is still worth taking, and why not. */
export type SampleVerdict =
  | { readonly take: true }
  | { readonly take: false; readonly reason: string };

/**
 * A queued sample is taken unless the next one is already due (it arrived a whole interval
 * late: a throttled or retried delivery; a late look is no look, and two would run at once) or
 * the deployed rules no longer plan it (redeployed with fewer samples meanwhile).
 */
export function judgeQueuedSample(
  config: Config,
  sample: QueuedSample,
  nowMs: number,
): SampleVerdict {
  if (sample.source !== 'live_calls' || sample.sample >= samplesPerRun(config, sample.source)) {
    return {
      take: false,
      reason: `sample ${sample.sample} of ${sample.source} is not planned by the deployed rules`,
    };
  }
  const lateMs = nowMs - sample.dueAtMs;
  if (lateMs >= sampleIntervalMs(config, sample.source)) {
    return {
      take: false,
      reason: `sample ${sample.sample} arrived ${Math.round(lateMs / 1000)} s after its slot, when the next one was due`,
    };
  }
  return { take: true };
}
