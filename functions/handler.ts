import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSEvent } from 'aws-lambda';
import { TelephonyClient } from '../shared/api/client';
import type { TokenSource } from '../shared/api/types';
import { smsPublishing } from '../shared/messages/sms-attributes';
import { METRIC_NAMESPACE, SERVICE_NAME } from '../shared/observability/metrics';
import type { Publisher, SampleQueue, StateStore } from '../shared/ports/types';
import { NotifierHandoff } from '../shared/runner/notifier-handoff';
import { runSource } from '../shared/runner/run';
import { sampleIntervalMs } from '../shared/runner/samples';
import type { PollClient, RunSummary } from '../shared/runner/types';
import type { SourceName } from '../shared/types/config';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';
import { DynamoStateStore } from './adapters/dynamodb-state';
import { SnsMessagePublisher } from './adapters/sns-messages';
import { SnsPublisher } from './adapters/sns-publisher';
import { SsmTokenSource } from './adapters/ssm-token';
import { collectAfterLargeRun } from './heap';
import { recordNotifierStep } from './notifier-metrics';
import { createObserver } from './observe';
import { createRuntime, deliveryOf, type Runtime, type SampleQueueFactory } from './runtime';
import { isSampleQueueEvent, queueLaterSamples, takeQueuedSample } from './samples';

/**
 * Kept free before Lambda's own timeout for the last sample's commit and publish (well under a
 * second when healthy). 3 s lets the fourth sample of a minute start at 45 s in a 55 s run.
 */
const SAFETY_MARGIN_MS = 3_000;

/**
 * The least time a run that takes one sample is given, even when samples are closer (5 s at
 * the closest): the runner starts a sample only with 3 s of request time and a 2 s margin left.
 */
const ONE_SAMPLE_MIN_MS = 6_000;

/** The container's wiring: what a test may replace or wrap. */
export interface PollerWiring {
  readonly runtime: Runtime;
  readonly store: StateStore;
  readonly publisher: Publisher;
  readonly tokens: TokenSource;
  readonly client: PollClient;
  /** Where a scheduled run's later samples go (absent: the run takes them all itself). */
  readonly samples?: SampleQueue;
}

export interface PollerOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** @default Date.now */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Wraps the container's wiring once it is built (tests: crash injection, fakes). */
  readonly wire?: (wiring: PollerWiring) => PollerWiring;
  readonly env?: NodeJS.ProcessEnv;
  /** A full garbage collection (`collectAfterLargeRun`). @default globalThis.gc */
  readonly collect?: () => void;
  /**
   * The sample queue, made from `TELEALERT_SAMPLE_QUEUE_URL` (`sqsSampleQueue`); only the live
   * calls entry gives it, so the payments bundle carries no SQS client.
   */
  readonly sampleQueue?: SampleQueueFactory;
}

/** An EventBridge scheduled event; only its id is read (log correlation). */
export interface ScheduledEvent {
  readonly id?: string;
}

/** What invokes a poller: its schedule, or its sample queue with a later sample. */
export type PollerEvent = ScheduledEvent | SQSEvent;

/**
 * A poller Lambda handler for one source: middy with Powertools Logger (context, correlation
 * with the run) and Metrics (EMF, flushed after each invocation), over `runSource`. The rules
 * file, environment, SDK clients and token cache are set up once per container, at the first
 * invocation; a broken deployment fails there with what to fix.
 */
export function createPollerHandler(source: SourceName, options: PollerOptions = {}) {
  const logger = options.logger ?? new Logger({ serviceName: SERVICE_NAME });
  const metrics =
    options.metrics ??
    new Metrics({
      namespace: METRIC_NAMESPACE,
      serviceName: SERVICE_NAME,
      defaultDimensions: { source },
    });
  // Read through `Date` at each call (not captured), so a test clock set later applies.
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let wiring: PollerWiring | undefined;

  const wire = (): PollerWiring => {
    const runtime = createRuntime(options.env, options.sampleQueue);
    const tokens = new SsmTokenSource({
      client: runtime.ssm,
      parameterName: runtime.config.api.tokenParameter,
      now,
    });
    const { sampleQueue } = runtime;
    const built: PollerWiring = {
      runtime,
      tokens,
      ...(sampleQueue ? { samples: sampleQueue.queue } : {}),
      store: new DynamoStateStore({ client: runtime.dynamodb, tableName: runtime.tableName, now }),
      publisher:
        deliveryOf(options.env ?? process.env) === 'messages'
          ? new NotifierHandoff({
              config: runtime.config,
              store: new DynamoNotifierStore({
                client: runtime.dynamodb,
                tableName: runtime.tableName,
                now,
              }),
              publisher: new SnsMessagePublisher({
                client: runtime.sns,
                topics: runtime.topics,
                sleep,
                onFailure: (failure) => logger.warn('SNS did not take a message', { ...failure }),
                sms: smsPublishing(runtime.config),
              }),
              now,
              onStep: (result) => recordNotifierStep(result, metrics, logger),
            })
          : new SnsPublisher({
              client: runtime.sns,
              topics: runtime.topics,
              sleep,
              onFailure: (failure) =>
                logger.warn('SNS did not take a notification', { ...failure }),
              sms: smsPublishing(runtime.config),
            }),
      client: new TelephonyClient({
        baseUrl: runtime.config.api.baseUrl,
        timeoutMs: runtime.config.api.timeoutMs,
        timeZone: runtime.config.timezone,
        tokenSource: tokens,
        // The runner's deadline is on this clock: the client must measure what is left by it.
        now,
        sleep,
      }),
    };
    return options.wire ? options.wire(built) : built;
  };

  const run = async (event: PollerEvent, context: Context): Promise<RunSummary> => {
    const queued = isSampleQueueEvent(event);
    logger.appendKeys({ source });
    logger.setCorrelationId(
      (queued ? event.Records[0]?.messageId : event?.id) ?? context.awsRequestId,
    );
    wiring ??= wire();
    const { config } = wiring.runtime;
    // The token (SSM, on a cold start or once the cache expires) is fetched while the state
    // loads instead of after it; the client's own get() joins the same request. A failure here
    // is left to that get(), which reports it as a failed poll.
    wiring.tokens.get().catch(() => undefined);
    const sampling = { config, source, logger, metrics };
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
      publisher: wiring.publisher,
      now,
      sleep,
      deadlineMs,
      observer: createObserver(logger, metrics, source),
      ...(samples ? { samples } : {}),
      // Slots count from the schedule, not from when queueing the other samples ended.
      ...(queued ? {} : { firstSampleAtMs: startMs }),
    });
    logger.info('run finished', { summary: { ...summary } });
    collectAfterLargeRun(summary.records, options.collect ?? globalThis.gc);
    return summary;
  };

  return middy(run)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { throwOnEmptyMetrics: false }));
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
