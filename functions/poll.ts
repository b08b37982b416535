import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { readsSource } from '../shared/config/sources';
import { runSource } from '../shared/runner/run';
import { sampleIntervalMs } from '../shared/runner/samples';
import type { RunSummary } from '../shared/runner/types';
import type { SourceName } from '../shared/types/config';
import type { PollerEvent } from './events';
import { collectAfterLargeRun } from './heap';
import { createObserver } from './observe';
import { isSampleQueueEvent, queueLaterSamples, takeQueuedSample } from './samples';
import type { PollerWiring } from './wiring';

/**
 * Kept free before Lambda's own timeout for the last sample's commit (and publish, when the
 * poller publishes itself; well under a second when healthy). 3 s lets the fourth sample of a minute start at 45 s in a 55 s run.
 */
const SAFETY_MARGIN_MS = 3_000;

/**
 * The least time a run that takes one sample is given, even when samples are closer (5 s at
 * the closest): the runner starts a sample only with 3 s of request time and a 2 s margin left.
 */
const ONE_SAMPLE_MIN_MS = 6_000;

/** What one poller invocation runs with: the container's wiring and the handler's own parts. */
export interface PollInvocation {
  readonly source: SourceName;
  readonly wiring: PollerWiring;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** A full garbage collection (`collectAfterLargeRun`); absent: `globalThis.gc`. */
  readonly collect: (() => void) | undefined;
}

/** The id a poller's log lines are correlated by: the queued message's, the schedule's, or the request's. */
export function pollCorrelationId(event: PollerEvent, context: Context): string {
  const id = isSampleQueueEvent(event) ? event.Records[0]?.messageId : event?.id;
  return id ?? context.awsRequestId;
}

/**
 * One poller invocation: which samples it takes (a scheduled one takes the first and queues the
 * rest, a queued one its own), then `runSource` until the deadline, the summary logged.
 */
export async function pollInvocation(
  invocation: PollInvocation,
  event: PollerEvent,
  context: Context,
): Promise<RunSummary> {
  const { source, wiring, now, sleep, logger, metrics } = invocation;
  const { config } = wiring.runtime;
  const queued = isSampleQueueEvent(event);
  // The token (SSM, on a cold start or once the cache expires) is fetched while the state
  // loads instead of after it; the client's own get() joins the same request. A failure here
  // is left to that get(), which reports it as a failed poll. A source no rule reads asks the
  // API nothing: no token.
  if (readsSource(config, source)) wiring.tokens.get().catch(() => undefined);
  const sampling = { config, source, logger };
  const startMs = now();
  const samples = queued
    ? takeQueuedSample(event, sampling, startMs)
    : await queueLaterSamples(wiring.samples, sampling, startMs);
  if (samples?.length === 0) return idleSummary(source);
  let deadlineMs = now() + context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS;
  // One sample of several is over before the next is due: with one run at a time, a sample
  // that kept retrying a hung API would otherwise hold the function past the next slots.
  if (samples?.length === 1) {
    const slotMs = Math.max(sampleIntervalMs(config, source), ONE_SAMPLE_MIN_MS);
    deadlineMs = Math.min(deadlineMs, now() + slotMs);
  }
  const summary = await runSource({
    config,
    source,
    client: wiring.client,
    store: wiring.store,
    now,
    sleep,
    deadlineMs,
    observer: createObserver(logger, metrics, source),
    ...(samples ? { samples } : {}),
    // Slots count from the schedule, not from when queueing the other samples ended.
    ...(queued ? {} : { firstSampleAtMs: startMs }),
  });
  logger.info('run finished', { summary: { ...summary } });
  collectAfterLargeRun(summary.records, invocation.collect ?? globalThis.gc);
  return summary;
}

/** A queued invocation whose sample was dropped: nothing polled, nothing sent. */
function idleSummary(source: SourceName): RunSummary {
  return {
    source,
    samples: 0,
    samplesPlanned: 0,
    sent: 0,
    owedLeft: 0,
    records: 0,
    skipped: 0,
    failures: 0,
    conflicts: 0,
  };
}
