import type { ApiRequest, Endpoint } from '../api/types';
import type { Notification } from '../engine/types';
import type { Publisher, StateStore } from '../ports/types';
import type { RecordBatch } from '../records/batch';
import type { ParsedBatch, PollFailure } from '../records/types';
import type { Config, SourceName } from '../types/config';

/** What the runner needs of `TelephonyClient` (kept structural so tests can fake it). */
export interface PollClient {
  request(
    request: ApiRequest,
    options: {
      readonly deadlineMs: number;
      readonly fields?: ReadonlySet<string>;
      readonly signal?: AbortSignal;
    },
  ): Promise<ParsedBatch>;
}

/** What happened during a run, as it happens; the Lambdas turn these into logs and metrics. */
export type RunEvent =
  | {
      readonly type: 'fetch';
      readonly sample: number;
      readonly endpoint: Endpoint;
      readonly latencyMs: number;
      readonly failure?: PollFailure;
    }
  | {
      readonly type: 'poll';
      readonly sample: number;
      readonly atMs: number;
      /** The merged, de-duplicated records of a successful poll (empty when it failed). */
      readonly records: RecordBatch;
      readonly skipped: number;
      readonly skipReasons: readonly string[];
      readonly failure?: PollFailure;
    }
  | { readonly type: 'conflict'; readonly sample: number; readonly retried: boolean }
  | {
      /**
       * A sample's evaluation is in the store: written (after its `poll`, before its `sent`),
       * or the same as what the store holds and wrote recently.
       */
      readonly type: 'committed';
      readonly sample: number;
      readonly revision: number;
      /**
       * Whether anything was written: a sample that changes nothing (no notification, the same
       * state, written less than `stateRefreshMs` ago) commits nothing, so a quiet minute costs
       * no write; `revision` is then the stored one.
       */
      readonly written: boolean;
      /**
       * Whether the sample's poll succeeded: only then is the source healthy end to end. False
       * for a source no rule reads, which asks the API nothing.
       */
      readonly pollOk: boolean;
      /** Notifications recorded owed by this commit. */
      readonly owed: number;
      /** Calls to `ack.did` from numbers in no channel, first seen by this sample. */
      readonly ackCallsRefused?: number;
    }
  | {
      readonly type: 'sent';
      readonly sample: number | 'owed';
      readonly notifications: readonly Notification[];
    }
  | {
      readonly type: 'undelivered';
      readonly sample: number | 'owed';
      readonly ids: readonly string[];
      readonly error?: unknown;
    }
  | {
      /**
       * New notifications of alerts that still have an earlier notification owed (a crashed
       * run's, younger than the grace period, or one that failed to go out): left owed, so a
       * later run sends them after it, in order, and a resolved never overtakes its firing.
       */
      readonly type: 'held';
      readonly sample: number;
      readonly ids: readonly string[];
    }
  | { readonly type: 'mark-sent-failed'; readonly ids: readonly string[]; readonly error: unknown }
  | { readonly type: 'deadline'; readonly samplesDone: number; readonly samplesPlanned: number };

export interface RunObserver {
  event(event: RunEvent): void;
}

export interface RunOptions {
  readonly config: Config;
  readonly source: SourceName;
  readonly client: PollClient;
  readonly store: StateStore;
  /**
   * Where the run's notifications go after its commit. Absent: nowhere, they stay owed in the
   * store for the notifier to take (deployed, `notifier-round.ts`), and the run sends nothing.
   */
  readonly publisher?: Publisher;
  /** Epoch ms; the only clock the runner reads. */
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Epoch ms by which the run must be over (the Lambda's remaining time minus a margin). */
  readonly deadlineMs: number;
  readonly observer?: RunObserver;
  /**
   * Owed notifications younger than this are left to the run that recorded them (it may still
   * be publishing them); older ones were left by a run that crashed. @default 120000
   */
  readonly owedGraceMs?: number;
  /** Time kept free after a sample's requests for commit and publish. @default 2000 */
  readonly sampleMarginMs?: number;
  /**
   * The planned samples (0-based) this run takes: the first now, each other at its slot after
   * it (`every / samples` apart). A queued sample is `[n]`, taken at once; a scheduled run
   * whose later samples are queued is `[0]`. @default every planned sample
   */
  readonly samples?: readonly number[];
  /**
   * When the first of `samples` is due, epoch ms: later ones are due at their slots after it.
   * A scheduled run that first queued its other samples passes its own start, so slots keep
   * to the schedule however long the queueing took. @default now, when the run starts
   */
  readonly firstSampleAtMs?: number;
  /**
   * An unchanged state is still written once the stored one is this old (or of unknown age):
   * the write proves the store still takes writes before `PollSucceeded` is counted (the
   * heartbeat), and renews the item's expiry. A source no rule reads has no heartbeat: its
   * state is written only when it changes. @default 600000
   */
  readonly stateRefreshMs?: number;
  /**
   * Ends the run early (a local poll stopped by Ctrl-C): requests in flight are cancelled, and
   * a sample cut short changes nothing, so a stop never counts as a failed poll.
   */
  readonly signal?: AbortSignal;
}

export interface RunSummary {
  readonly source: SourceName;
  /** Samples evaluated. */
  readonly samples: number;
  /** Samples this run was to take (`samples`, when given). */
  readonly samplesPlanned: number;
  /** Notifications delivered by this run (owed ones included). */
  readonly sent: number;
  /** Notifications this run knows are still owed (failed or not yet due). */
  readonly owedLeft: number;
  readonly records: number;
  readonly skipped: number;
  /** Samples whose poll failed. */
  readonly failures: number;
  /** Samples given up after losing to a concurrent run twice. */
  readonly conflicts: number;
  /**
   * Calls to `ack.did` from numbers in no channel's `sms` list (each call once): they
   * acknowledge nothing; a count that grows may be someone forging caller ID.
   */
  readonly ackCallsRefused?: number;
}
