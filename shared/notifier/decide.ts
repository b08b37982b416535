import type { Notification } from '../engine/types';
import type { Config } from '../types/config';
import { Attendant } from './attend';
import { ChannelFlow, EMPTY_CHANNEL } from './channel';
import { IncompatibleNotifierStateError } from './errors';
import { escalate } from './escalate';
import { FOLD_ABOVE } from './fold';
import { MAX_FOLLOWED_ALERTS } from './follow';
import { applyAction, type PersonAction } from './people';
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
 *    ack confirmations, then the SMS cap over every message in order (never a critical first
 *    firing's, rule 2) and its digest SMS, which tells each alert's latest status (rule 3).
 * Called with no events it is the clock tick: held groups, digests, escalations and silence
 * ends that are due go out. `nextDueAtMs` is when it next has work without a new event.
 *
 * Events reach each of their channels in exactly one `alerts` message or one active-hours
 * digest (`Outbound.delivers`), or are recorded in `muted`. On a flood (a kept list of more
 * than `foldAbove` events) an alert's events between those a message needs are folded into the
 * next one kept (`Outbound.folded`): the state is bounded by alerts, the messages unchanged.
 * Channels no longer configured are forgotten. At most `followAtMost` firing alerts are
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
  // Intake: people's actions, acknowledgements, silences at arrival, who each event goes to.
  const people = new Attendant(config, acted, nowMs, how.followAtMost);
  for (const event of events) people.take(event);
  // The channels' own messages: grouped, deferred, silenced when they go.
  const flows = Object.values(config.channels).map((channel) => {
    const flow = new ChannelFlow(
      config,
      channel,
      acted.channels[channel.name] ?? EMPTY_CHANNEL,
      nowMs,
      how,
    );
    flow.route(
      people.routed
        .filter((item) => item.channels.includes(channel.name))
        .map((item) => item.event),
    );
    const { told, silenced } = flow.flush(people.silences);
    people.silencedHeld(channel.name, silenced);
    people.heard(channel.name, told);
    return flow;
  });
  // Then escalation, counted from what the channels told; then each channel's cap.
  const escalations = escalate(people.alerts, people.silences, nowMs);
  const channels: Record<string, ChannelState> = {};
  const messages: Outbound[] = [];
  const attended = people.finish();
  let nextDueAtMs = attended.dueAtMs;
  for (const flow of flows) {
    const name = flow.channel.name;
    const direct = [...(people.direct.get(name) ?? []), ...(escalations.get(name) ?? [])];
    const result = flow.finish(direct, people.silences);
    if (result.state !== undefined) channels[name] = result.state;
    for (const message of result.messages) messages.push(message);
    if (result.dueAtMs !== undefined) {
      nextDueAtMs =
        nextDueAtMs === undefined ? result.dueAtMs : Math.min(nextDueAtMs, result.dueAtMs);
    }
  }
  return {
    state: { ...attended.state, version: NOTIFIER_STATE_VERSION, channels },
    messages,
    nextDueAtMs,
    muted: attended.muted,
    unfollowed: attended.unfollowed,
  };
}
