import type { SQSEvent } from 'aws-lambda';

/** An EventBridge scheduled event; only its id is read (log correlation). */
export interface ScheduledEvent {
  readonly id?: string;
}

/** What invokes a poller: its schedule, or its sample queue with a later sample. */
export type PollerEvent = ScheduledEvent | SQSEvent;
