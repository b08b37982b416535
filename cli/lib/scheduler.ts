import { readsSource } from '../../shared/config/sources';
import { runSource } from '../../shared/runner/run';
import type { RunOptions, RunSummary } from '../../shared/runner/types';
import type { Config, SourceName } from '../../shared/types/config';
import { SOURCES } from '../../shared/types/config';
import type { LocalNotifier } from './notifier';

/** What the local schedule needs: a run's options, less its own source, deadline and sleep. */
export interface LocalPollOptions
  extends Pick<RunOptions, 'config' | 'client' | 'store' | 'publisher' | 'now' | 'observer'> {
  /** Stops the schedule: waits end and requests in flight are cancelled. */
  readonly signal: AbortSignal;
  /** How much faster than real time `now` runs (the demo's clock); waits shrink to match. @default 1 */
  readonly speed?: number;
  /** One run per source, then return. */
  readonly once: boolean;
  /** Called after each run. */
  readonly onRun?: (summary: RunSummary) => void;
  /**
   * The notifier the runs hand their events to (it is then also `publisher`): its own clock
   * runs beside the sources (not with `once`), as the notifier Lambda's schedule does.
   */
  readonly notifier?: LocalNotifier;
}

/** The sources at least one rule reads: those whose polls ask the API. */
export function watchedSources(config: Config): SourceName[] {
  return SOURCES.filter((source) => readsSource(config, source));
}

/**
 * The local twin of the EventBridge schedules: each source runs the same `runSource` as its
 * Lambda, every `sources.<name>.every`, until the signal aborts (a source no rule reads too,
 * asking the API nothing: it ends its removed rules' alerts, contract 6.1 rule 8). A run's deadline is
 * the start of the next one, so its samples spread over the period as they do deployed. When
 * one source's run fails (a state file gone bad), the others stop too and the error is thrown:
 * the command ends at once instead of idling until the next slot of another source.
 */
export async function pollOnSchedule(options: LocalPollOptions): Promise<RunSummary[]> {
  const failed = new AbortController();
  const signal = AbortSignal.any([options.signal, failed.signal]);
  const sleep = abortableSleep(signal, options.speed);
  const summaries: RunSummary[] = [];
  const clock = async () => {
    if (options.notifier === undefined || options.once) return;
    try {
      await options.notifier.runClock(signal, sleep);
    } catch (error) {
      failed.abort();
      throw error;
    }
  };
  await Promise.all([
    clock(),
    ...SOURCES.map(async (source) => {
      const everyMs = options.config.sources[source].everyMs;
      try {
        while (!signal.aborted) {
          const startMs = options.now();
          const summary = await runSource({
            config: options.config,
            source,
            client: options.client,
            store: options.store,
            publisher: options.publisher,
            now: options.now,
            sleep,
            signal,
            deadlineMs: startMs + everyMs,
            ...(options.observer ? { observer: options.observer } : {}),
          });
          summaries.push(summary);
          options.onRun?.(summary);
          if (options.once) return;
          const waitMs = startMs + everyMs - options.now();
          if (waitMs > 0) await sleep(waitMs);
        }
      } catch (error) {
        failed.abort();
        throw error;
      }
    }),
  ]);
  return summaries;
}

/**
 * A sleep of real time (`ms / scale`) that ends early, without error, when the signal aborts,
 * or the one a caller passes along (the API client's retry wait passes its request's).
 */
export function abortableSleep(
  signal: AbortSignal,
  scale = 1,
): (ms: number, also?: AbortSignal) => Promise<void> {
  return (ms, also) =>
    new Promise((resolve) => {
      const stop = also === undefined ? signal : AbortSignal.any([signal, also]);
      if (stop.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms / scale));
      function done() {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      }
      stop.addEventListener('abort', done, { once: true });
    });
}
