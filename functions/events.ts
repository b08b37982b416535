import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';

/** An EventBridge scheduled event; only its id is read (log correlation). */
export interface ScheduledEvent {
  readonly id?: string;
}

/** What invokes a poller: its schedule, or its sample queue with a later sample. */
export type PollerEvent = ScheduledEvent | SQSEvent;

/**
 * What invokes the notifier: its minute, or the state table's stream when a poller's commit
 * changed a source's state item (only the keys are read: the round reads the table itself).
 */
export type NotifierEvent = ScheduledEvent | DynamoDBStreamEvent;
