import { ApiError } from '../api/errors';
import { readsSource, samplesPerRun } from '../config/sources';
import { evaluate } from '../engine/evaluate';
import { planRequests } from '../engine/plan';
import { preferredRow } from '../engine/preferred';
import { emptyState } from '../engine/state';
import type { Notification, SourceState } from '../engine/types';
import { usedFields } from '../engine/used-fields';
import { StateConflictError, TokenUnavailableError } from '../ports/errors';
import type { PublishOutcome, StoredState } from '../ports/types';
import { RecordBatch } from '../records/batch';
import type { PollFailure, PollResult } from '../records/types';
import { jsonEqual } from './json-equal';
import type { RunEvent, RunOptions, RunSummary } from './types';

const DEFAULT_OWED_GRACE_MS = 120_000;
const DEFAULT_STATE_REFRESH_MS = 600_000;
const DEFAULT_SAMPLE_MARGIN_MS = 2_000;
/**
 * The least request time a sample is started with. A sample does not wait for a whole
 * `api.timeout` to fit: its requests are cut at the run's deadline instead, so the last of four
 * samples in a 55 s Lambda still runs (the API answers in well under a second when healthy).
 */
const MIN_SAMPLE_REQUEST_MS = 3_000;

/**
 * One run of one source's poller (a Lambda invocation, or one `telealert poll` tick):
 * 1. delivers what a crashed run left owed (only entries older than the grace period, so the
 *    fresh entries of a concurrent run are not published twice);
 * 2. per sample (live_calls: `samples` evenly spaced over `every`, or those given;
 *    payments: one), while the deadline leaves room: plan, fetch, evaluate, commit state + owed
 *    conditional on the revision, publish, mark sent (a notification only some channels took
 *    is narrowed to the others; one of an alert that still has an earlier notification owed
 *    is held, left owed for a later run to send after it). A sample that changes nothing writes nothing, unless the
 *    stored state is older than `stateRefreshMs` (default 10 minutes). A lost race
 *    re-reads and re-evaluates once, then gives up the sample: the winner's state already
 *    carries what it sent, so nothing goes out twice.
 *
 * A source no rule reads (every rule of it removed) takes one sample a run and asks the API
 * nothing (no request, no token, no `poll` event, no heartbeat): its evaluation only ends the
 * firing alerts of the removed rules (contract 6.1 rule 8), and it writes only when that
 * changes something.
 *
 * Without a `publisher` (deployed) a run only commits: what it owes stays owed for the
 * notifier function, which takes the committed notifications from the store itself.
 *
 * @throws StateStoreError when the store is unreachable; errors that are not an API's or the
 *   token's (bugs) are rethrown too, so the run fails loudly.
 */
export async function runSource(options: RunOptions): Promise<RunSummary> {
  const { config, source, store, now, deadlineMs } = options;
  const emit = (event: RunEvent) => options.observer?.event(event);
  /** Owed notifications not yet known delivered: id -> alert key. */
  const owedLeft = new Map<string, string>();
  let sent = 0;

  const { publisher } = options;
  const deliver = async (sample: number | 'owed', notifications: readonly Notification[]) => {
    if (notifications.length === 0 || publisher === undefined) return;
    let outcome: PublishOutcome = { delivered: [], partial: [] };
    try {
      outcome = await publisher.publish(notifications);
    } catch (error) {
      emit({ type: 'undelivered', sample, ids: notifications.map((n) => n.id), error });
    }
    const { delivered, partial } = outcome;
    const done = new Set(delivered);
    const missed = notifications.filter((n) => !done.has(n.id)).map((n) => n.id);
    if (delivered.length > 0) {
      sent += delivered.length;
      emit({ type: 'sent', sample, notifications: notifications.filter((n) => done.has(n.id)) });
      try {
        await store.markSent(source, delivered);
        for (const id of delivered) owedLeft.delete(id);
      } catch (error) {
        // Delivered but still recorded owed: a later run sends it again (at-least-once).
        emit({ type: 'mark-sent-failed', ids: delivered, error });
      }
    }
    // Owed from now on to the channels that did not take it only, so a later run does not
    // send it again to those that did. Sequential: a partial delivery is rare.
    for (const { id, channels } of partial) {
      try {
        await store.narrowOwed(source, id, channels);
      } catch (error) {
        // Still owed to every channel: a later run sends it again to all (at-least-once).
        emit({ type: 'mark-sent-failed', ids: [id], error });
      }
    }
    if (missed.length > 0 && (delivered.length > 0 || partial.length > 0))
      emit({ type: 'undelivered', sample, ids: missed });
  };

  let stored = await store.load(source);
  for (const n of stored.owed) owedLeft.set(n.id, n.key);
  const graceMs = options.owedGraceMs ?? DEFAULT_OWED_GRACE_MS;
  const runStartMs = now();
  await deliver(
    'owed',
    stored.owed.filter((n) => Date.parse(n.at) <= runStartMs - graceMs),
  );

  const reads = readsSource(config, source);
  const perRun = samplesPerRun(config, source);
  const intervalMs = source === 'live_calls' ? config.sources.live_calls.everyMs / perRun : 0;
  const indexes = (options.samples ?? Array.from({ length: perRun }, (_, i) => i)).slice(
    0,
    reads ? undefined : 1,
  );
  const first = indexes[0] ?? 0;
  const startMs = options.firstSampleAtMs ?? runStartMs;
  const planned = indexes.length;
  const budgetMs =
    Math.min(config.api.timeoutMs, MIN_SAMPLE_REQUEST_MS) +
    (options.sampleMarginMs ?? DEFAULT_SAMPLE_MARGIN_MS);
  let samples = 0;
  let records = 0;
  let skipped = 0;
  let failures = 0;
  let conflicts = 0;
  let ackCallsRefused = 0;

  for (const sample of indexes) {
    const targetMs = Math.max(startMs + (sample - first) * intervalMs, now());
    if (targetMs + budgetMs > deadlineMs) {
      emit({ type: 'deadline', samplesDone: samples, samplesPlanned: planned });
      break;
    }
    const waitMs = targetMs - now();
    if (waitMs > 0) await options.sleep(waitMs);
    if (options.signal?.aborted) break;

    const poll = reads ? await pollOnce(options, sample, emit, stored.state) : NOTHING_ASKED;
    // Stopped while asking: the answer (or its failure) is the stop's, not the API's.
    if (options.signal?.aborted) break;
    samples += 1;
    if (poll.ok) {
      records += poll.records.length;
      skipped += poll.skipped;
    } else {
      failures += 1;
    }

    let outcome = await evaluateAndCommit(options, stored, poll);
    if (outcome === 'conflict') {
      emit({ type: 'conflict', sample, retried: true });
      stored = await store.load(source);
      outcome = await evaluateAndCommit(options, stored, poll);
      if (outcome === 'conflict') {
        emit({ type: 'conflict', sample, retried: false });
        conflicts += 1;
        stored = await store.load(source);
        continue;
      }
    }
    stored = outcome.stored;
    ackCallsRefused += outcome.refusedAckCalls;
    emit({
      type: 'committed',
      sample,
      revision: stored.revision,
      written: outcome.written,
      pollOk: reads && poll.ok,
      owed: outcome.notifications.length,
      ...(outcome.refusedAckCalls > 0 ? { ackCallsRefused: outcome.refusedAckCalls } : {}),
    });
    // An alert with an earlier notification still owed waits behind it: this one is owed too,
    // so a later run sends both, oldest first. Without a publisher everything stays owed for
    // the notifier, which takes it in order: nothing is held.
    const waiting = new Set(publisher === undefined ? [] : owedLeft.values());
    const held = outcome.notifications.filter((n) => waiting.has(n.key));
    for (const n of outcome.notifications) owedLeft.set(n.id, n.key);
    if (held.length > 0) emit({ type: 'held', sample, ids: held.map((n) => n.id) });
    await deliver(
      sample,
      held.length === 0
        ? outcome.notifications
        : outcome.notifications.filter((n) => !waiting.has(n.key)),
    );
  }

  return {
    source,
    samples,
    samplesPlanned: planned,
    sent,
    owedLeft: owedLeft.size,
    records,
    skipped,
    failures,
    conflicts,
    ackCallsRefused,
  };
}

/** The poll of a source no rule reads: nothing asked (the engine does not look at it). */
const NOTHING_ASKED: PollResult = { ok: true, records: RecordBatch.EMPTY, skipped: 0 };

/** Evaluates a poll on top of `stored` and commits; `'conflict'` when another run won. */
async function evaluateAndCommit(
  options: RunOptions,
  stored: StoredState,
  poll: PollResult,
): Promise<
  | 'conflict'
  | {
      stored: StoredState;
      notifications: readonly Notification[];
      written: boolean;
      refusedAckCalls: number;
    }
> {
  const { config, source, store } = options;
  const nowMs = options.now();
  const evaluation = evaluate(config, source, poll, nowMs, stored.state);
  const { state, notifications } = evaluation;
  const refusedAckCalls = evaluation.refusedAckCalls ?? 0;
  const refreshMs = options.stateRefreshMs ?? DEFAULT_STATE_REFRESH_MS;
  // The refresh is the heartbeat's; a source no rule reads has none (nothing to watch).
  const fresh =
    !readsSource(config, source) ||
    (stored.writtenAtMs !== undefined && nowMs - stored.writtenAtMs < refreshMs);
  if (fresh && notifications.length === 0 && sameState(stored.state ?? emptyState(source), state)) {
    // Nothing to remember and nothing owed: a conditional write here would only cost money.
    return { stored: { ...stored, owed: [] }, notifications, written: false, refusedAckCalls };
  }
  try {
    const revision = await store.commit(source, stored.revision, state, notifications);
    return {
      stored: { state, revision, writtenAtMs: nowMs, owed: [] },
      notifications,
      written: true,
      refusedAckCalls,
    };
  } catch (error) {
    if (error instanceof StateConflictError) return 'conflict';
    throw error;
  }
}

/**
 * The engine builds a state's keys in a fixed order (alerts sorted by key) and the stores
 * return what was committed as written, so equal states have equal JSON (compared without
 * writing it: `jsonEqual`).
 */
function sameState(before: unknown, after: SourceState): boolean {
  return jsonEqual(before, after);
}

/** Plans and performs one poll: every planned request, merged and de-duplicated by key. */
async function pollOnce(
  options: RunOptions,
  sample: number,
  emit: (event: RunEvent) => void,
  state: SourceState | undefined,
): Promise<PollResult> {
  const { config, source, client, now, deadlineMs } = options;
  const atMs = now();
  // The state says which firing payments older than the lookback still need fetching.
  const requests = planRequests(config, source, atMs, state);
  // Only what the rules and metrics read is normalised; messages read the rest from `raw`.
  const fields = usedFields(config, source);
  const results = await Promise.all(
    requests.map(async (request) => {
      const started = now();
      try {
        const batch = await client.request(request, {
          deadlineMs,
          fields,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        emit({ type: 'fetch', sample, endpoint: request.endpoint, latencyMs: now() - started });
        return { ok: true as const, batch };
      } catch (error) {
        const failure = toFailure(error);
        emit({
          type: 'fetch',
          sample,
          endpoint: request.endpoint,
          latencyMs: now() - started,
          failure,
        });
        return { ok: false as const, failure };
      }
    }),
  );
  const failed = results.find((r) => !r.ok);
  if (failed !== undefined && !failed.ok) {
    emit({
      type: 'poll',
      sample,
      atMs,
      records: RecordBatch.EMPTY,
      skipped: 0,
      skipReasons: [],
      failure: failed.failure,
    });
    return { ok: false, error: failed.failure };
  }
  const batches: RecordBatch[] = [];
  let skipped = 0;
  const skipReasons: string[] = [];
  for (const result of results) {
    if (!result.ok) continue;
    batches.push(result.batch.records);
    skipped += result.batch.skipped;
    for (const reason of result.batch.skipReasons) skipReasons.push(reason);
  }
  // A payment two requests return (a pushed-down comparison asks for rows twice) counts once:
  // the row `preferredPayment` picks, whichever request answered first.
  const records = RecordBatch.merge(batches, preferredRow(source, config.timezone));
  emit({ type: 'poll', sample, atMs, records, skipped, skipReasons: skipReasons.slice(0, 5) });
  return { ok: true, records, skipped };
}

/** An API error's own poll failure; a token that cannot be read is an auth failure. */
function toFailure(error: unknown): PollFailure {
  if (error instanceof ApiError) return error.toPollFailure();
  if (error instanceof TokenUnavailableError) return { kind: 'auth', message: error.message };
  throw error;
}
