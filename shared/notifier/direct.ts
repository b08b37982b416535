import type { HeldEvent } from './types';

/** An event to route to some of its channels as usual (grouping, active hours, the cap). */
export interface Routed {
  readonly event: HeldEvent;
  readonly channels: readonly string[];
}

/** A message that skips grouping: an escalation step, or an acknowledgement's confirmation. */
export interface Direct {
  readonly reason: 'escalation' | 'ack';
  readonly groupKey: string;
  readonly title: string;
  readonly events: readonly HeldEvent[];
  /** Event ids this message is the first to tell its channel (an ack call's own event). */
  readonly delivers: readonly string[];
}
