import type { Notification } from '../../shared/engine/types';
import type { MessagePublisher, NotifierStore } from '../../shared/ports/notifier';
import type { Publisher, PublishOutcome } from '../../shared/ports/types';
import { type NotifierStepResult, notifierStep } from '../../shared/runner/notifier-step';
import type { Config } from '../../shared/types/config';

/** The deployed notifier's schedule: it looks at least once a minute. */
const TICK_MS = 60_000;

export interface LocalNotifierOptions {
  readonly config: Config;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
  readonly now: () => number;
  /** Sees each event handed over (the demo's `--events`). */
  readonly onEvents?: (events: readonly Notification[]) => void;
  /** Sees each step's result. */
  readonly onStep?: (result: NotifierStepResult) => void;
}

/**
 * The notifier in process (`telealert poll`, the demo): the pollers' `Publisher` hands each
 * run's events to a notifier step right after its commit (deployed, the notifier function
 * takes them from the table, woken by the commit on the table's stream), and
 * `runClock` is the notifier's own schedule, stepping at each due time (a held group, a
 * digest) and at least once a minute. Steps of one process run one at a time.
 */
export class LocalNotifier implements Publisher {
  #queue: Promise<unknown> = Promise.resolve();
  #dueAtMs: number | undefined;
  #sleepingUntil = Number.POSITIVE_INFINITY;
  #wake: (() => void) | undefined;

  constructor(private readonly options: LocalNotifierOptions) {}

  /** When the notifier next has work without a new event, as of its last step. */
  get nextDueAtMs(): number | undefined {
    return this.#dueAtMs;
  }

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    this.options.onEvents?.(notifications);
    await this.step(notifications);
    // Taken in by the notifier (committed with its state): the poller owes them no more.
    return { delivered: notifications.map((n) => n.id), partial: [] };
  }

  /** One step, with events or as the clock's tick. */
  step(events: readonly Notification[] = []): Promise<NotifierStepResult> {
    const run = async () => {
      const result = await notifierStep({ ...this.options, events });
      this.#dueAtMs = result.nextDueAtMs;
      this.options.onStep?.(result);
      if (result.nextDueAtMs !== undefined && result.nextDueAtMs < this.#sleepingUntil) {
        this.#wake?.();
      }
      return result;
    };
    const result = this.#queue.then(run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Steps at each due time and at least once a minute, until `signal` aborts. */
  async runClock(
    signal: AbortSignal,
    sleep: (ms: number, also?: AbortSignal) => Promise<void>,
  ): Promise<void> {
    while (!signal.aborted) {
      await this.step();
      const nowMs = this.options.now();
      this.#sleepingUntil = Math.min(this.#dueAtMs ?? Number.POSITIVE_INFINITY, nowMs + TICK_MS);
      const wake = new AbortController();
      this.#wake = () => wake.abort();
      // At least a second apart, should a due time ever not move ahead.
      await sleep(Math.max(1000, this.#sleepingUntil - nowMs), wake.signal);
      this.#wake = undefined;
      this.#sleepingUntil = Number.POSITIVE_INFINITY;
    }
  }
}
