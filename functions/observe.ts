import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  CALL_STATES,
  type CallState,
  callState,
  METRIC_NAMES,
} from '../shared/observability/metrics';
import type { RecordBatch } from '../shared/records/batch';
import type { RunEvent, RunObserver } from '../shared/runner/types';
import type { SourceName } from '../shared/types/config';

/** The metric names the stack's alarms and dashboards read (docs/architecture.md). */
export const METRIC = METRIC_NAMES;

/**
 * Turns the runner's events into structured logs and EMF metrics (namespace and service are
 * the `Metrics` instance's; every metric carries the `source` dimension). Logs carry ids, rules
 * and reasons, never a token or a record's raw body. `PollSucceeded` counts samples whose poll
 * succeeded and whose state was committed (the `committed` event), not successful polls alone.
 *
 * Metrics are billed per series and month, so only what an alarm or a graph needs is one
 * (`METRIC_INVENTORY`); the API's latency, records skipped, pending payments and calls to the
 * acknowledgement number are fields of the poll's log line, which the dashboard queries.
 */
export function createObserver(logger: Logger, metrics: Metrics, source: SourceName): RunObserver {
  /** The slowest API answer of the sample being polled (its requests come before its `poll`). */
  let apiMs: number | undefined;
  return {
    event(event: RunEvent) {
      switch (event.type) {
        case 'fetch':
          apiMs = Math.max(apiMs ?? 0, event.latencyMs);
          if (event.failure) {
            logger.warn('API request failed', {
              endpoint: event.endpoint,
              failure: event.failure,
              latencyMs: event.latencyMs,
            });
          }
          return;
        case 'poll': {
          const latency = apiMs === undefined ? {} : { apiMs };
          apiMs = undefined;
          if (event.failure) {
            metrics.addMetric(METRIC.pollFailed, MetricUnit.Count, 1);
            logger.warn('poll failed', {
              sample: event.sample,
              failure: event.failure,
              ...latency,
            });
            return;
          }
          logger.info('poll succeeded', {
            sample: event.sample,
            records: event.records.length,
            skipped: event.skipped,
            ...latency,
            ...recordGauges(event.records),
            ...(event.skipReasons.length > 0 ? { skipReasons: event.skipReasons } : {}),
          });
          return;
        }
        case 'committed':
          // The heartbeat the dead-man's switch watches: a poll that succeeded is only healthy
          // once its state is in the store. A quiet sample writes nothing, but the runner writes
          // at least every 10 minutes, so a store that rejects writes stops it within those.
          if (event.pollOk) metrics.addMetric(METRIC.pollSucceeded, MetricUnit.Count, 1);
          if (event.ackCallsRefused !== undefined) {
            // Caller ID can be forged: calls from unknown numbers acknowledge nothing, logged.
            logger.warn('calls to ack.did from numbers in no channel acknowledged nothing', {
              sample: event.sample,
              calls: event.ackCallsRefused,
            });
          }
          return;
        case 'sent':
          for (const n of event.notifications) {
            logger.info('notification sent', {
              id: n.id,
              rule: n.rule,
              status: n.status,
              severity: n.severity,
              channels: n.channels,
              owed: event.sample === 'owed',
            });
          }
          return;
        case 'undelivered':
          logger.error('notifications not delivered; they stay owed for the next run', {
            ids: event.ids,
            ...(event.error === undefined ? {} : { error: event.error }),
          });
          return;
        case 'held':
          logger.warn(
            'notifications held behind an earlier one of the same alert still owed; a later run sends them in order',
            { sample: event.sample, ids: event.ids },
          );
          return;
        case 'mark-sent-failed':
          logger.error('delivered notifications could not be marked sent; they may repeat', {
            ids: event.ids,
            error: event.error,
          });
          return;
        case 'conflict':
          logger.info(
            event.retried
              ? 'a concurrent run committed first; re-evaluating on its state'
              : 'lost to a concurrent run twice; leaving this sample to it',
            { sample: event.sample },
          );
          return;
        case 'deadline':
          logger.warn('stopped sampling: not enough time left before the deadline', {
            samplesDone: event.samplesDone,
            samplesPlanned: event.samplesPlanned,
          });
          return;
      }
    },
  };

  /**
   * What the dashboard graphs of a successful poll: live calls by state (metrics, the states
   * folded into `CALL_STATES`, every state each time so a quiet minute reads 0), or the pending
   * payments (a log field). Returned as fields of the poll's log line.
   */
  function recordGauges(records: RecordBatch): Record<string, unknown> {
    if (source === 'live_calls') {
      const calls = Object.fromEntries(CALL_STATES.map((state) => [state, 0])) as Record<
        CallState,
        number
      >;
      for (let index = 0; index < records.length; index += 1) {
        calls[callState(records.value(index, 'state'))] += 1;
      }
      for (const state of CALL_STATES) {
        const metric = metrics.singleMetric();
        // `source` (and `service`) come with the default dimensions `singleMetric` copies.
        metric.addDimensions({ state });
        metric.addMetric(METRIC.callsByState, MetricUnit.Count, calls[state]);
      }
      return { calls };
    }
    let pending = 0;
    for (let index = 0; index < records.length; index += 1) {
      if (String(records.value(index, 'status') ?? '').toLowerCase() === 'pending') pending += 1;
    }
    return { pending };
  }
}
