import type { RecordBatch } from '../records/batch';
import { canonicalPhone } from '../records/phone';
import type { Config } from '../types/config';
import type { Notification } from './types';

/**
 * The event a call to `ack.did` from a channel's number becomes: not an alert (no rule counts
 * it, it never fires, repeats or resolves) but the notifier's cue to acknowledge that
 * channel's firing alerts and confirm with an `ack` message.
 */
export const ACK_CALL = 'ack_call';

/** Calls to `ack.did` are remembered this long, so one call seen by many samples counts once. */
export const ACK_CALL_MEMORY_MS = 3_600_000;

/** What the live-calls poller made of the calls to `ack.did` in one poll. */
export interface AckCalls {
  /** The poll's records without the calls to `ack.did`: what the rules see. */
  readonly records: RecordBatch;
  /** One `ack_call` event per call from a channel's number not seen before. */
  readonly notifications: readonly Notification[];
  /** Calls to `ack.did` seen in the last hour, by call_id, with when first seen (epoch ms). */
  readonly seen: Readonly<Record<string, number>>;
  /** Calls to `ack.did` from numbers in no channel's `sms` list, not seen before. */
  readonly refused: number;
}

/**
 * The channels whose `sms` list, or whose rotation's members (contract section 8), hold
 * `caller` (canonical, as the config's numbers are read).
 */
function callerChannels(config: Config, caller: string): string[] {
  return Object.values(config.channels)
    .filter(
      (channel) =>
        channel.sms.some((number) => canonicalEquals(number, caller)) ||
        rotationNumbers(config, channel.rotation).some((number) => canonicalEquals(number, caller)),
    )
    .map((channel) => channel.name);
}

/** The sms numbers of a rotation's members. */
function rotationNumbers(config: Config, rotation: string | undefined): string[] {
  const members = rotation === undefined ? [] : (config.rotations?.[rotation]?.members ?? []);
  return members.flatMap((name) => {
    const sms = config.people?.[name]?.sms;
    return sms === undefined ? [] : [sms];
  });
}

function canonicalEquals(configured: string, caller: string): boolean {
  // Records' phones are canonical already (+91..., 91..., 0... read as one number).
  return canonicalPhone(configured) === caller;
}

function ackCallEvent(
  config: Config,
  callId: string,
  caller: string,
  channels: readonly string[],
  nowMs: number,
): Notification {
  const key = `${ACK_CALL}{call_id=${callId}}`;
  const text = `A call from ${caller} to ${config.ack?.did ?? ''} (call ${callId}) acknowledges the firing alerts of channel ${channels.join(', ')}.`;
  return {
    // One id per call, whenever and however often it is seen: the notifier takes it once.
    id: `${key}|call`,
    at: new Date(nowMs).toISOString(),
    source: 'live_calls',
    rule: ACK_CALL,
    status: 'firing',
    severity: 'info',
    channels,
    key,
    labels: { call_id: callId, from: caller },
    sms: `ACK call from ${caller}`,
    subject: `ACK call from ${caller}`,
    text,
  };
}

/**
 * Takes the calls to `ack.did` out of a live-calls poll before any rule sees them (contract
 * section 6: they count in no rule), in any call state. A call from a number in a channel's
 * `sms` list becomes one `ack_call` event to those channels; one from any other number
 * acknowledges nothing (caller ID can be forged) and is counted. Each call counts once, by
 * `call_id`, however many samples see it. Pure.
 */
export function takeAckCalls(
  config: Config,
  records: RecordBatch,
  previous: Readonly<Record<string, number>> | undefined,
  nowMs: number,
): AckCalls {
  const seen: Record<string, number> = {};
  for (const [callId, at] of Object.entries(previous ?? {})) {
    if (at > nowMs - ACK_CALL_MEMORY_MS) seen[callId] = at;
  }
  const did = config.ack?.did;
  if (did === undefined) return { records, notifications: [], seen, refused: 0 };
  const kept: number[] = [];
  const notifications: Notification[] = [];
  let refused = 0;
  for (let index = 0; index < records.length; index += 1) {
    if (records.value(index, 'did') !== did) {
      kept.push(index);
      continue;
    }
    const callId = records.key(index);
    if (Object.hasOwn(seen, callId)) continue;
    seen[callId] = nowMs;
    const caller = String(records.value(index, 'source') ?? '');
    const channels = caller === '' ? [] : callerChannels(config, caller);
    if (channels.length === 0) refused += 1;
    else notifications.push(ackCallEvent(config, callId, caller, channels, nowMs));
  }
  return {
    records: kept.length === records.length ? records : records.select(kept),
    notifications,
    seen,
    refused,
  };
}
