import type { AckFacts } from './ack-call';
import type { HeldEvent } from './types';

/** An event to route to some of its channels as usual (grouping, active hours, the cap). */
export interface Routed {
  readonly event: HeldEvent;
  readonly channels: readonly string[];
}

/**
 * A message that skips grouping: an escalation step, an acknowledgement's confirmation, a
 * rotation's handoff to the incoming person (`oncall.ts`), or what a channel gone from the rules
 * file kept, handed to `health.notify` (`handover.ts`; `title`: the gone channel).
 */
export interface Direct {
  readonly reason: 'escalation' | 'ack' | 'handoff' | 'handover';
  readonly groupKey: string;
  readonly title: string;
  readonly events: readonly HeldEvent[];
  /**
   * A handoff: whether the incoming person has a number (its SMS goes to them alone, not to
   * the channel's fixed lists). @default the channel's numbers decide
   */
  readonly sms?: boolean;
  /** Event ids this message is the first to tell its channel (an ack call's own event). */
  readonly delivers: readonly string[];
  /**
   * An ack confirmation: the caller its SMS goes to alone (`Message.to`); absent on a channel
   * whose message of the same call goes by email only.
   */
  readonly to?: string;
  /** An ack confirmation: what it says beyond the alerts it acknowledged. */
  readonly ack?: AckFacts;
}
