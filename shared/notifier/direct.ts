import type { ChannelConfig, Config } from '../types/config';
import type { AckFacts } from './ack-call';
import type { Candidate } from './cap';
import { compose } from './compose';
import { pagesIn, wantsSms } from './pages';
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

/**
 * A direct message to a channel, told now (not deferred), before the SMS cap has looked at it:
 * its parts, the first delivering `item.delivers`. `firesUnacknowledged`:
 * `ChannelOptions.firesUnacknowledged`.
 */
export function directCandidates(
  config: Config,
  channel: ChannelConfig,
  nowMs: number,
  item: Direct,
  firesUnacknowledged: (key: string, firedAt: number | undefined) => boolean,
): Candidate[] {
  const parts = compose({
    config,
    channel,
    reason: item.reason,
    groupKey: item.groupKey,
    events: item.events,
    nowMs,
    withSms: item.sms ?? wantsSms(channel, item.events),
    title: item.title,
    ...(item.ack === undefined ? {} : { ack: item.ack }),
  });
  // A handover (`handover.ts`) pages for a page its gone channel kept and never sent
  // (contract 6.1 rules 2, 5 and 8), as that channel's own digest would have.
  const critical =
    item.reason === 'handover'
      ? pagesIn(item.events, firesUnacknowledged)
      : item.events.some((event) => event.severity === 'critical');
  return parts.map((part, index) => {
    // An ack's SMS goes to the caller alone (`to`), whatever `minSeverity` (contract 6.1 rule 7).
    const to = index === 0 && part.message.sms !== null ? item.to : undefined;
    const message = to === undefined ? part.message : { ...part.message, to };
    return {
      part: { message, ids: index === 0 ? item.delivers : [] },
      // An escalation of a critical alert is a page that matters.
      criticalFirst: index === 0 && critical,
      // A handoff, and an ack's confirmation to its caller, neither held nor counted by the
      // cap: forged calls cannot burn the SMS budget nor hold back a page (rule 7).
      ...(item.reason === 'handoff' || item.reason === 'ack' ? { uncapped: true } : {}),
      // The first part decides what the cap does with the item's events (its SMS tells them
      // all); the others are the email's continuation and carry none.
      events: index === 0 ? item.events : [],
    };
  });
}
