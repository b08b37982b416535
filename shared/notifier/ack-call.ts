import type { Config } from '../types/config';
import type { Direct } from './direct';
import { ackHolds, alertAsEvent, reachedChannels, ruleOf, settle, worthFollowing } from './tracked';
import type { Acknowledgement, FiringNote, HeldEvent, MessageAlert, TrackedAlert } from './types';

/*
 * A call to `ack.did` (contract 6.1 rule 7, "an answer is confirmed, never amplified"): it
 * acknowledges its caller's channels' firing alerts for `ack.timeout`, and is confirmed by one
 * `ack` message a channel, whose SMS goes to the caller alone, outside the SMS cap, at most
 * once per caller per 10 minutes.
 */

/** A caller gets at most one confirmation this often; further calls are counted, not answered. */
export const ACK_ANSWER_EVERY_MS = 10 * 60_000;

/** `ack.timeout` when the rules file has no `ack` (calls then acknowledge nothing anyway). */
const DEFAULT_ACK_TIMEOUT_MS = 30 * 60_000;

/** What an `ack` message says beyond the alerts it acknowledged (`compose.ts`). */
export interface AckFacts {
  /** The caller's number. */
  readonly caller: string;
  /** When this call's acknowledgement lapses (epoch ms). */
  readonly until: number;
  /** The channel's other firing alerts, and why this call did not acknowledge them. */
  readonly firing: readonly OtherFiring[];
}

/**
 * A firing alert of the channel the call did not acknowledge: acknowledged before (`ack`), its
 * rule neither repeats nor escalates (`quiet`: nothing to stop), or not followed (`unfollowed`:
 * more alerts fire than the notifier follows).
 */
export type OtherFiring =
  | { readonly alert: MessageAlert; readonly why: 'acked'; readonly ack: Acknowledgement }
  | { readonly alert: MessageAlert; readonly why: 'quiet' | 'unfollowed' };

/** One call, as the notifier takes it. */
export interface AckCall {
  readonly callId: string;
  readonly caller: string;
  /** The ack_call event's id: what the confirmation delivers. */
  readonly eventId: string;
  /** The caller's channels (their `sms` lists, or their rotations, hold the number). */
  readonly channels: readonly string[];
  /** Whether the call is confirmed (the caller had no confirmation in the last 10 minutes). */
  readonly answered: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

function asAlert(event: HeldEvent): MessageAlert {
  return {
    rule: event.rule,
    key: event.key,
    status: 'firing',
    severity: event.severity,
    labels: event.labels,
    value: event.value,
    at: iso(event.at),
  };
}

function noteAlert(key: string, item: FiringNote): MessageAlert {
  return {
    rule: item.rule,
    key,
    status: 'firing',
    severity: item.severity,
    labels: item.labels,
    value: null,
    at: iso(item.lastFiringAt),
  };
}

/**
 * Acknowledges, for `ack.timeout`, the followed firing alerts that reached each of the call's
 * channels and that no acknowledgement holds (one that lapsed is renewed; a call never extends
 * one that holds, so calls every few minutes cannot keep a page away). Updates `alerts`.
 * Returns, by channel, its `ack` message when the call is answered: the first channel's carries
 * the SMS to the caller, the others go by email only (one confirmation a call).
 */
export function takeAckCall(
  config: Config,
  alerts: Map<string, TrackedAlert>,
  notes: ReadonlyMap<string, FiringNote>,
  call: AckCall,
  nowMs: number,
): Map<string, Direct> {
  const until = nowMs + (config.ack?.timeoutMs ?? DEFAULT_ACK_TIMEOUT_MS);
  const ack: Acknowledgement = { by: call.caller, at: nowMs, via: 'call', until };
  const out = new Map<string, Direct>();
  let smsSent = false;
  for (const channel of call.channels) {
    if (config.channels[channel] === undefined) continue;
    const acked: HeldEvent[] = [];
    const firing: OtherFiring[] = [];
    for (const [key, tracked] of alerts) {
      if (!reachedChannels(tracked).has(channel)) continue;
      // Its rule is gone from the rules file: nothing of it repeats or escalates any more, and
      // its resolution is on its way (contract 6.1 rule 8). Or its rule neither repeats nor
      // escalates (followed only for the silence that kept its firing untold): nothing to stop.
      // Firing, not acknowledged.
      if (tracked.retiredAt !== undefined || !worthFollowing(ruleOf(config, tracked.rule))) {
        firing.push({ alert: asAlert(alertAsEvent(key, tracked)), why: 'quiet' });
        continue;
      }
      if (tracked.ack !== undefined && ackHolds(tracked.ack, nowMs)) {
        firing.push({ alert: asAlert(alertAsEvent(key, tracked)), why: 'acked', ack: tracked.ack });
        continue;
      }
      alerts.set(key, settle({ ...tracked, ack }));
      acked.push(alertAsEvent(key, tracked));
    }
    for (const [key, item] of notes) {
      // Followed as well (a silence kept its firing untold): listed above.
      if (!item.channels.includes(channel) || alerts.has(key)) continue;
      const why = worthFollowing(ruleOf(config, item.rule)) ? 'unfollowed' : 'quiet';
      firing.push({ alert: noteAlert(key, item), why });
    }
    if (!call.answered) continue;
    out.set(channel, {
      reason: 'ack',
      groupKey: `ack|${call.callId}`,
      title: `ACK by ${call.caller}`,
      events: acked,
      delivers: [call.eventId],
      sms: !smsSent,
      ...(smsSent ? {} : { to: call.caller }),
      ack: { caller: call.caller, until, firing },
    });
    smsSent = true;
  }
  return out;
}
