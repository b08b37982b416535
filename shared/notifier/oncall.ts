import { handoffTime } from '../oncall/describe';
import type { Override } from '../oncall/types';
import { onCallAt } from '../oncall/who';
import type { Config, PersonConfig } from '../types/config';
import type { Direct } from './direct';
import { silenceFor } from './silence';
import { alertAsEvent, heardAt, reachedChannels } from './tracked';
import type { HeldEvent, Silence, TrackedAlert } from './types';

/*
 * The notifier's side of rotations (contract section 8): who each rotation's channel reaches
 * now, and the handoff message the incoming person gets when that changes (a shift's handoff,
 * or an override starting or ending). The step's own time decides it, so a handoff goes out on
 * the notifier's minute with no poller running.
 */

/** Who a rotation's channel reaches at the step's time. */
export interface ChannelOnCall {
  readonly rotation: string;
  readonly who: string;
  /** Their `people` entry (absent only for an override naming someone the file no longer has). */
  readonly person: PersonConfig | undefined;
  readonly since: number;
  /** When someone else takes over; undefined when nobody else ever does. */
  readonly until: number | undefined;
}

/** For each channel with a `rotation`, who is on call at `nowMs`. */
export function channelsOnCall(
  config: Config,
  overrides: readonly Override[],
  nowMs: number,
): Map<string, ChannelOnCall> {
  const out = new Map<string, ChannelOnCall>();
  const byRotation = new Map<string, ChannelOnCall>();
  for (const channel of Object.values(config.channels)) {
    const rotation =
      channel.rotation === undefined ? undefined : config.rotations?.[channel.rotation];
    if (rotation === undefined) continue;
    let found = byRotation.get(rotation.name);
    if (found === undefined) {
      const now = onCallAt(rotation, overrides, nowMs, config.timezone);
      found = {
        rotation: rotation.name,
        who: now.who,
        person: config.people?.[now.who],
        since: now.since,
        until: now.until,
      };
      byRotation.set(rotation.name, found);
    }
    out.set(channel.name, found);
  }
  return out;
}

/** The member of `rotation` whose `sms` is `number` (E.164), if any. */
export function memberWithNumber(
  config: Config,
  rotation: string,
  number: string,
): string | undefined {
  const members = config.rotations?.[rotation]?.members ?? [];
  return members.find((name) => config.people?.[name]?.sms === number);
}

/** The earliest instant a rotation's channel reaches someone else: the step due then. */
export function nextOnCallChange(onCall: ReadonlyMap<string, ChannelOnCall>): number | undefined {
  let next: number | undefined;
  for (const { until } of onCall.values()) {
    if (until !== undefined && (next === undefined || until < next)) next = until;
  }
  return next;
}

/**
 * The firing alerts followed that have reached `channel` (its own, or escalated to it) and were
 * told: the lines of a handoff. A firing still held, deferred or kept untold by a silence is
 * told by its own message; one a silence in force matches now is not told at all (contract 6.1
 * rule 5).
 */
function firingFor(
  alerts: ReadonlyMap<string, TrackedAlert>,
  silences: readonly Silence[],
  channel: string,
  nowMs: number,
): HeldEvent[] {
  const out: HeldEvent[] = [];
  for (const [key, tracked] of alerts) {
    if (tracked.untoldSince !== undefined || heardAt(tracked) === undefined) continue;
    if (!reachedChannels(tracked).has(channel)) continue;
    if (silenceFor(silences, tracked, nowMs) !== undefined) continue;
    out.push(alertAsEvent(key, tracked));
  }
  return out;
}

/**
 * Handoffs due now: for each rotation's channel whose person on call is not the one last told
 * (`told`, kept in the state), a `handoff` message to the incoming person naming the end of
 * their shift and the channel's firing alerts. Runs after the channels told this step's events,
 * so an alert resolved in this step is not listed and one paged in it is. `told`: what the state
 * keeps next, the person each rotation's channel last handed to.
 */
export function handoffs(
  config: Config,
  told: Readonly<Record<string, string>> | undefined,
  onCall: ReadonlyMap<string, ChannelOnCall>,
  alerts: ReadonlyMap<string, TrackedAlert>,
  silences: readonly Silence[],
  nowMs: number,
): { readonly direct: Map<string, Direct[]>; readonly told: Record<string, string> } {
  const direct = new Map<string, Direct[]>();
  const next: Record<string, string> = {};
  for (const [channel, now] of onCall) {
    next[channel] = now.who;
    if (told?.[channel] === now.who) continue;
    const until =
      now.until === undefined ? '' : ` until ${handoffTime(now.until, config.timezone)}`;
    direct.set(channel, [
      {
        reason: 'handoff',
        groupKey: `handoff|${now.rotation}|${now.who}|${now.since}`,
        title: `${now.who}: on call for ${channel}${until}`,
        events: firingFor(alerts, silences, channel, nowMs),
        sms: now.person?.sms !== undefined,
        delivers: [],
      },
    ]);
  }
  return { direct, told: next };
}
