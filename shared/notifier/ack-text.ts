import { formatApiDateTime } from '../time/zone';
import type { AckFacts, OtherFiring } from './ack-call';
import { formatLimit, MAX_FOLLOWED_ALERTS } from './follow';
import { alertFact, byImportance, ruleFacts } from './sms';
import type { MessageAlert } from './types';

/*
 * What the confirmation of a call to `ack.did` says (contract 6.1 rule 7), for an on-call
 * engineer woken at 3 AM: what the call acknowledged and until when, what else fires and why
 * the call did not acknowledge it, and `no firing alerts` only when none fires.
 */

/** `10:38`: when an acknowledgement lapses, on the local clock (at most a day ahead). */
function clock(ms: number, zone: string): string {
  return formatApiDateTime(ms, zone).slice(11, 16);
}

function counted(n: number): string {
  return `${n} ${n === 1 ? 'alert' : 'alerts'}`;
}

/**
 * `ACK by +919800000001 until 10:38: 2 alerts`; with nothing acknowledged, `ACK by ...:
 * nothing to acknowledge; 1 firing` (the firing alerts follow), or `ACK by ...: no firing
 * alerts` when none of the channel's alerts fires.
 */
export function ackHeadline(ack: AckFacts, lines: readonly unknown[], zone: string): string {
  const by = `ACK by ${ack.caller}`;
  if (lines.length > 0) return `${by} until ${clock(ack.until, zone)}: ${counted(lines.length)}`;
  if (ack.firing.length > 0) return `${by}: nothing to acknowledge; ${ack.firing.length} firing`;
  return `${by}: no firing alerts`;
}

/**
 * The SMS facts: the headline, the alerts acknowledged, then the channel's other firing alerts
 * (`also firing: ...`; one acknowledged before ends in `(acked)`), most important first.
 */
export function ackSmsFacts(
  headline: string,
  acked: readonly MessageAlert[],
  ack: AckFacts,
): string[] {
  const before = new Set(
    ack.firing.filter((item) => item.why === 'acked').map((item) => item.alert.key),
  );
  const others = byImportance(ack.firing.map((item) => item.alert));
  const facts = [
    ...ruleFacts(others.filter((alert) => !before.has(alert.key))),
    ...others
      .filter((alert) => before.has(alert.key))
      .map((alert) => `${alertFact(alert)} (acked)`),
  ];
  if (acked.length > 0 && facts.length > 0) facts[0] = `also firing: ${facts[0]}`;
  return [headline, ...ruleFacts(acked), ...facts];
}

function why(item: OtherFiring, zone: string): string {
  if (item.why !== 'acked') {
    return item.why === 'quiet'
      ? 'nothing to acknowledge: its rule neither repeats nor escalates'
      : `not followed: more than ${formatLimit(MAX_FOLLOWED_ALERTS)} alerts that repeat or escalate are firing`;
  }
  const until =
    item.ack.until === undefined ? '' : ` until ${formatApiDateTime(item.ack.until, zone)}`;
  return `acknowledged by ${item.ack.by}${until}`;
}

/** The email's opening lines: what the call did, and the channel's other firing alerts. */
export function ackIntro(ack: AckFacts, acked: number, zone: string): string[] {
  const out: string[] = [];
  if (acked > 0) {
    out.push(
      `The call acknowledged these alerts until ${formatApiDateTime(ack.until, zone)}: no repeats and no escalation until then. Caller ID can be forged, so an acknowledgement by call lasts ack.timeout: an alert still firing then is told again and escalates (telealert ack KEY acknowledges until it resolves).`,
    );
  } else if (ack.firing.length > 0) {
    out.push(
      'The call was seen, but it had nothing to acknowledge: the alerts firing on this channel (below) were acknowledged already, or have no repeat or escalation to stop.',
    );
  } else {
    out.push('The call was seen. No alert of this channel is firing: nothing to acknowledge.');
  }
  out.push(
    `This confirmation's SMS goes to ${ack.caller} alone; further calls from it in the next 10 minutes acknowledge but are not answered.`,
  );
  if (ack.firing.length > 0) {
    out.push('', acked > 0 ? 'Also firing on this channel:' : 'Firing on this channel:');
    for (const item of ack.firing) {
      out.push(`  ${item.alert.key}  ${item.alert.severity.toUpperCase()}  (${why(item, zone)})`);
    }
  }
  return out;
}
