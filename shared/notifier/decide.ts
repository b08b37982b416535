import type { Notification } from '../engine/types';
import { keptOverrides } from '../oncall/overrides';
import type { ChannelConfig, Config } from '../types/config';
import { Attendant } from './attend';
import { ChannelFlow, EMPTY_CHANNEL } from './channel';
import { IncompatibleNotifierStateError } from './errors';
import { escalate } from './escalate';
import { FOLD_ABOVE } from './fold';
import { MAX_FOLLOWED_ALERTS } from './follow';
import { handovers } from './handover';
import {
  type ChannelOnCall,
  channelsOnCall,
  handoffs,
  memberWithNumber,
  nextOnCallChange,
} from './oncall';
import { applyAction, type PersonAction } from './people';
import { heardBy } from './tracked';
import type { ChannelState, Decision, NotifierState, Outbound } from './types';
import { NOTIFIER_STATE_VERSION } from './types';

/** How a step keeps its state; the defaults are the deployed ones. */
export interface DecideOptions {
  /**
   * A kept list of more events than this is folded per alert (`fold.ts`); tests compare folding
   * at every size with none. @default FOLD_ABOVE
   */
  readonly foldAbove?: number;
  /**
   * The state this step would keep cannot be stored (more alerts kept than the state item
   * holds, even folded): tell everything kept now instead of losing it or failing every step.
   * Held groups go at once, the active-hours digest goes even outside the window (saying so),
   * the SMS the cap held go as their digest SMS even past the cap. @default false
   */
  readonly release?: boolean;
  /**
   * The firing alerts followed at most (`follow.ts`); tests make it small. Replay and the
   * deployed notifier both keep the default, so they follow the same alerts.
   * @default MAX_FOLLOWED_ALERTS
   */
  readonly followAtMost?: number;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/**
 * A rotation's channel as this step reaches it (contract section 8): its fixed lists and the
 * person on call, so the SMS cap, `minSeverity` and email-only messages count them alike.
 */
function reaching(channel: ChannelConfig, now: ChannelOnCall | undefined): ChannelConfig {
  const person = now?.person;
  if (person === undefined) return channel;
  return {
    ...channel,
    sms: person.sms === undefined ? channel.sms : [...channel.sms, person.sms],
    email: person.email === undefined ? channel.email : [...channel.email, person.email],
  };
}

/**
 * A message to a rotation's channel carries the person it reaches (`oncall`): the person on
 * call, but for an ack's confirmation, its caller (contract 8: "the ack message goes to the
 * caller"; 6.1 rule 7): a member of the rotation by name, and none when the caller is a number
 * of the channel's fixed list (their subscription routes on `to`).
 */
function stamped(config: Config, outbound: Outbound, now: ChannelOnCall | undefined): Outbound {
  if (now === undefined) return outbound;
  const { to } = outbound.message;
  const oncall = to === undefined ? now.who : memberWithNumber(config, now.rotation, to);
  return oncall === undefined
    ? outbound
    : { ...outbound, message: { ...outbound.message, oncall } };
}

/** A notifier that has decided nothing yet. */
export function emptyNotifierState(): NotifierState {
  return { version: NOTIFIER_STATE_VERSION, channels: {} };
}

function checkState(state: NotifierState | undefined): NotifierState {
  if (state === undefined) return emptyNotifierState();
  if (typeof state !== 'object' || state === null || typeof state.channels !== 'object') {
    throw new IncompatibleNotifierStateError('not a notifier state');
  }
  if (state.version !== NOTIFIER_STATE_VERSION) {
    throw new IncompatibleNotifierStateError(
      `version ${String(state.version)}, this telealert reads ${NOTIFIER_STATE_VERSION}`,
    );
  }
  return state;
}

/**
 * One step of the notifier (Alertmanager's dispatcher and notify pipeline in one pure
 * function): takes the alert events decided since the last step, in order, people's actions
 * (silences, acknowledgements) and the time, and decides the messages that go out now. The
 * stages, in order, each rule of contract 6.1 in one of them:
 * 1. intake (`attend.ts`): actions applied; firings a silence kept untold told once it ended;
 *    a new firing told from a repeat by its firing time (rule 1); a repeat of an acknowledged
 *    alert recorded, not sent; a call to `ack.did` acknowledges and is confirmed; a resolution
 *    goes to every channel that heard the firing (rule 6).
 * 2. per channel (`channel.ts` `route`, `flush`): grouped (`group.by`, `wait`, `interval`; a
 *    critical first firing brings its group forward, rule 2), deferred outside active hours
 *    into one digest; the silence stage when a message goes (rule 5).
 * 3. escalation (`escalate.ts`): steps due, counted from the first message that told the
 *    alert to its own channels (rule 4).
 * 4. per channel (`channel.ts` `finish`): escalations deferred outside active hours (rule 5),
 *    ack confirmations, then the SMS cap over the step's messages together (never a critical
 *    first firing's, rule 2) and its digest SMS, which tells each alert's latest status (rule 3).
 * 5. rules-file changes (contract 6.1 rule 8): what a channel gone from the file kept (held,
 *    deferred, SMS held by the cap) goes to `health.notify` at once (`handover.ts`), through
 *    those channels' caps; followed alerts of a rule gone from the file escalate no further and
 *    wait for the resolution the engine tells of them (`tracked.ts` `retire`).
 * 6. rotations (`oncall.ts`, contract section 8): each message to a rotation's channel carries
 *    `oncall`, the person on call as it goes; when that person changes (a handoff, an override
 *    starting or ending), the incoming one gets a `handoff` message the cap neither holds nor
 *    counts.
 * Called with no events it is the clock tick: held groups, digests, escalations, silence ends
 * and handoffs that are due go out. `nextDueAtMs` is when it next has work without a new event
 * (`heldDueAtMs`: the same, rotations' handoffs left out).
 *
 * Events reach each of their channels in exactly one `alerts` message or one active-hours
 * digest (`Outbound.delivers`), or are recorded in `muted`. On a flood (a kept list of more
 * than `foldAbove` events) an alert's events between those a message needs are folded into the
 * next one kept (`Outbound.folded`): the state is bounded by alerts, the messages unchanged.
 * Channels no longer configured are forgotten once what they kept is handed over. At most `followAtMost` firing alerts are
 * followed for acknowledgement and escalation (`follow.ts`): a firing past it is told all the
 * same, its message saying it is not followed, and listed in `unfollowed`.
 *
 * @throws IncompatibleNotifierStateError when `previous` is not a state this version reads.
 */
export function decide(
  config: Config,
  previous: NotifierState | undefined,
  events: readonly Notification[],
  nowMs: number,
  actions: readonly PersonAction[] = [],
  options: DecideOptions = {},
): Decision {
  const how: Required<DecideOptions> = {
    foldAbove: options.foldAbove ?? FOLD_ABOVE,
    release: options.release ?? false,
    followAtMost: options.followAtMost ?? MAX_FOLLOWED_ALERTS,
  };
  let acted = checkState(previous);
  for (const action of actions) acted = applyAction(acted, action, nowMs);
  // Who each rotation's channel reaches now (contract section 8): on the step's own clock, so a
  // handoff goes on the notifier's minute with no poller running.
  const overrides = keptOverrides(acted.overrides ?? [], nowMs);
  const onCall = channelsOnCall(config, overrides, nowMs);
  // Intake: people's actions, acknowledgements, silences at arrival, who each event goes to.
  const people = new Attendant(config, acted, nowMs, how.followAtMost);
  people.tellUnsilenced(events);
  for (const event of events) people.take(event);
  people.lapse();
  const firesUnacknowledged = (key: string, firedAt: number | undefined) => {
    const tracked = people.alerts.get(key);
    return (
      tracked !== undefined &&
      tracked.ack === undefined &&
      (firedAt === undefined || tracked.firedAt === firedAt)
    );
  };
  const laterFiringTold = (key: string, firedAt: number, channel: string) => {
    const tracked = people.alerts.get(key);
    return tracked !== undefined && tracked.firedAt > firedAt && heardBy(tracked, channel);
  };
  // The channels' own messages: grouped, deferred, silenced when they go.
  const flows = Object.values(config.channels).map((channel) => {
    const flow = new ChannelFlow(
      config,
      reaching(channel, onCall.get(channel.name)),
      acted.channels[channel.name] ?? EMPTY_CHANNEL,
      nowMs,
      { ...how, firesUnacknowledged, laterFiringTold },
    );
    flow.route(
      people.routed
        .filter((item) => item.channels.includes(channel.name))
        .map((item) => item.event),
    );
    const { told, silenced } = flow.flush(people.silences);
    people.silencedHeld(channel.name, silenced, told);
    people.heard(channel.name, told);
    return flow;
  });
  // Then escalation, counted from what the channels told; then handoffs, which list what fires
  // once this step's events are told; then each channel's cap.
  const escalations = escalate(people.alerts, people.silences, nowMs);
  const handed = handoffs(config, acted.oncall, onCall, people.alerts, people.silences, nowMs);
  // What channels gone from the rules file kept: to `health.notify` at once (6.1 rule 8).
  const handedOver = handovers(config, acted.channels);
  const channels: Record<string, ChannelState> = {};
  const messages: Outbound[] = [];
  const attended = people.finish();
  let heldDueAtMs = attended.dueAtMs;
  for (const flow of flows) {
    const name = flow.channel.name;
    const direct = [
      ...(people.direct.get(name) ?? []),
      ...(escalations.get(name) ?? []),
      ...(handed.direct.get(name) ?? []),
      ...(handedOver.get(name) ?? []),
    ];
    const result = flow.finish(direct, people.silences);
    if (result.state !== undefined) channels[name] = result.state;
    for (const message of result.messages) {
      messages.push(stamped(config, message, onCall.get(name)));
    }
    heldDueAtMs = earliest(heldDueAtMs, result.dueAtMs);
  }
  const { overrides: _overrides, oncall: _told, ...state } = attended.state;
  return {
    state: {
      ...state,
      version: NOTIFIER_STATE_VERSION,
      channels,
      ...(overrides.length > 0 ? { overrides } : {}),
      ...(Object.keys(handed.told).length > 0 ? { oncall: handed.told } : {}),
    },
    messages,
    nextDueAtMs: earliest(heldDueAtMs, nextOnCallChange(onCall)),
    heldDueAtMs,
    muted: attended.muted,
    unfollowed: attended.unfollowed,
  };
}
