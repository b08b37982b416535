import type { Notification } from '../engine/types';
import type { MessagePublisher, NotifierStore } from '../ports/notifier';
import type { Publisher, PublishOutcome } from '../ports/types';
import type { Config } from '../types/config';
import { type NotifierStepResult, notifierStep } from './notifier-step';

export interface NotifierHandoffOptions {
  readonly config: Config;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
  readonly now: () => number;
  /** Sees each step's result (metrics, logs). */
  readonly onStep?: (result: NotifierStepResult) => void;
}

/**
 * The pollers' `Publisher` when the notifier decides what reaches people: a run's events go to
 * a notifier step right after the run's commit. Once the step has committed them (recorded as
 * taken in, with the messages owed) the poller owes them no more; a step that fails leaves them
 * owed to the poller, which hands them over again (the step skips what it already took).
 */
export class NotifierHandoff implements Publisher {
  constructor(private readonly options: NotifierHandoffOptions) {}

  async publish(notifications: readonly Notification[]): Promise<PublishOutcome> {
    const result = await notifierStep({ ...this.options, events: notifications });
    this.options.onStep?.(result);
    return { delivered: notifications.map((n) => n.id), partial: [] };
  }
}
