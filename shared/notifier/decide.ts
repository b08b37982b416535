import type { Notification } from '../engine/types';
import type { ChannelConfig, Config } from '../types/config';
import { SEVERITIES } from '../types/config';
import { isActive, nextWindowStart } from './active';
import { attend, type Direct } from './attend';
import { highestSeverity } from './bodies';
import { type ComposedPart, compose, type MessageReason, RICH_ALERTS } from './compose';
import { IncompatibleNotifierStateError } from './errors';
import { FOLD_ABOVE, foldEvents } from './fold';
import { MAX_FOLLOWED_ALERTS } from './follow';
import { groupOf, trimTexts } from './group';
import { applyAction, type PersonAction } from './people';
import type {
  ChannelState,
  Decision,
  GroupState,
  HeldEvent,
  NotifierState,
  Outbound,
} from './types';
import { NOTIFIER_STATE_VERSION } from './types';

const HOUR_MS = 3_600_000;

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

const EMPTY_CHANNEL: ChannelState = { groups: {}, smsSentAt: [], smsHeld: [], deferred: [] };

/** A notifier that has decided nothing yet. */
export function emptyNotifierState(): NotifierState {
  return { version: NOTIFIER_STATE_VERSION, channels: {} };
}

/** A message decided for a channel, before the SMS cap has looked at it. */
interface Candidate {
  readonly part: ComposedPart;
  /** Part 1 of the first message of a new group with a critical alert: the cap never holds it. */
  readonly criticalFirst: boolean;
  readonly events: readonly HeldEvent[];
}

/** The working copy of one channel's state during a step. */
interface ChannelWork {
  groups: Map<string, GroupState>;
  smsSentAt: number[];
  smsHeld: HeldEvent[];
  deferred: HeldEvent[];
}

function wantsSms(channel: ChannelConfig, events: readonly HeldEvent[]): boolean {
  if (channel.sms.length === 0) return false;
  const floor = SEVERITIES.indexOf(channel.minSeverity ?? 'info');
  return SEVERITIES.indexOf(highestSeverity({ alerts: events })) >= floor;
}

function candidates(
  config: Config,
  channel: ChannelConfig,
  reason: MessageReason,
  groupKey: string,
  events: readonly HeldEvent[],
  nowMs: number,
  opensGroup: boolean,
  early = false,
): Candidate[] {
  const parts = compose({
    config,
    channel,
    reason,
    groupKey,
    events,
    nowMs,
    withSms: wantsSms(channel, events),
    ...(early ? { early } : {}),
  });
  const critical = events.some((event) => event.severity === 'critical');
  return parts.map((part, index) => {
    // A set, not ids.includes: a digest of a night's events is thousands of ids a part.
    const told = new Set(part.ids);
    return {
      part,
      criticalFirst: opensGroup && critical && index === 0,
      events: events.filter((event) => told.has(event.id)),
    };
  });
}

/** Routes a step's events into the channel's groups, or into its digest when inactive. */
function route(
  channel: ChannelConfig,
  work: ChannelWork,
  events: readonly HeldEvent[],
  active: boolean,
  nowMs: number,
): void {
  if (!active) {
    // One at a time: a night's deferred events can be more than push() takes arguments.
    for (const event of events) work.deferred.push(event);
    return;
  }
  // The held lists this call made, appended in place: a copy per event made a step of many
  // events for one group (the pollers' backlog after a notifier outage) quadratic.
  const owned = new Map<string, HeldEvent[]>();
  for (const event of events) {
    const { key, labels } = groupOf(channel, event);
    const group = work.groups.get(key);
    if (group !== undefined && group.held.length > 0) {
      const mine = owned.get(key);
      if (mine !== undefined) {
        mine.push(event);
      } else {
        const held = [...group.held, event];
        owned.set(key, held);
        work.groups.set(key, { ...group, held });
      }
      continue;
    }
    const quiet =
      group?.lastSentAt === undefined || nowMs >= group.lastSentAt + channel.group.intervalMs;
    const held = [event];
    owned.set(key, held);
    work.groups.set(key, {
      labels,
      ...(quiet || group?.lastSentAt === undefined ? {} : { lastSentAt: group.lastSentAt }),
      dueAt: quiet
        ? nowMs + channel.group.waitMs
        : (group?.lastSentAt ?? nowMs) + channel.group.intervalMs,
      held,
      opensGroup: quiet,
    });
  }
}

/**
 * Messages of due groups (all that hold events, when releasing); a group due while the channel
 * is inactive is deferred instead.
 */
function flushGroups(
  config: Config,
  channel: ChannelConfig,
  work: ChannelWork,
  active: boolean,
  nowMs: number,
  release: boolean,
): Candidate[] {
  const out: Candidate[] = [];
  for (const [key, group] of work.groups) {
    const ready = release || (group.dueAt !== undefined && group.dueAt <= nowMs);
    if (group.held.length > 0 && ready) {
      if (active) {
        const due = candidates(config, channel, 'alerts', key, group.held, nowMs, group.opensGroup);
        for (const candidate of due) out.push(candidate);
        work.groups.set(key, {
          labels: group.labels,
          lastSentAt: nowMs,
          held: [],
          opensGroup: false,
        });
      } else {
        for (const event of group.held) work.deferred.push(event);
        work.groups.set(key, {
          labels: group.labels,
          ...(group.lastSentAt === undefined ? {} : { lastSentAt: group.lastSentAt }),
          held: [],
          opensGroup: false,
        });
      }
    }
  }
  // A group with nothing held whose interval has passed is forgotten: its next event is new.
  for (const [key, group] of work.groups) {
    const open =
      group.lastSentAt !== undefined && nowMs < group.lastSentAt + channel.group.intervalMs;
    if (group.held.length === 0 && !open) work.groups.delete(key);
  }
  return out;
}

/** When the SMS of the last rolling hour leave room for one more. */
function smsRoomAt(channel: ChannelConfig, sentAt: readonly number[]): number {
  const over = sentAt.length - channel.smsPerHour;
  if (over < 0) return Number.NEGATIVE_INFINITY;
  return (sentAt[over] ?? 0) + HOUR_MS;
}

/**
 * The SMS cap (contract section 6): a message's SMS goes while the rolling hour has room, or
 * when it is the first message of a new group of a critical alert; otherwise the email goes
 * alone and its events wait for one digest SMS.
 */
function capSms(
  channel: ChannelConfig,
  work: ChannelWork,
  decided: readonly Candidate[],
  nowMs: number,
): Outbound[] {
  return decided.map(({ part, criticalFirst, events }) => {
    const delivers = { delivers: part.ids, ...foldedOf(part.ids, events) };
    if (part.message.sms === null) return { message: part.message, ...delivers, smsHeld: false };
    if (criticalFirst || smsRoomAt(channel, work.smsSentAt) <= nowMs) {
      work.smsSentAt.push(nowMs);
      return { message: part.message, ...delivers, smsHeld: false };
    }
    for (const event of events) work.smsHeld.push(event);
    return { message: { ...part.message, sms: null }, ...delivers, smsHeld: true };
  });
}

/** `Outbound.folded` of a message delivering `ids`: absent unless one of them stands for others. */
function foldedOf(
  ids: readonly string[],
  events: readonly HeldEvent[],
): { folded?: Record<string, number> } {
  const delivered = new Set(ids);
  const folded: Record<string, number> = {};
  let any = false;
  for (const event of events) {
    if (event.folded === undefined || !delivered.has(event.id)) continue;
    folded[event.id] = event.folded;
    any = true;
  }
  return any ? { folded } : {};
}

/** Escalations and ack confirmations: composed at once, then under the cap like the rest. */
function directCandidates(
  config: Config,
  channel: ChannelConfig,
  direct: readonly Direct[],
  nowMs: number,
): Candidate[] {
  return direct.flatMap((item) => {
    const parts = compose({
      config,
      channel,
      reason: item.reason,
      groupKey: item.groupKey,
      events: item.events,
      nowMs,
      withSms: channel.sms.length > 0 && (item.reason === 'ack' || wantsSms(channel, item.events)),
      title: item.title,
    });
    const critical = item.events.some((event) => event.severity === 'critical');
    return parts.map((part, index) => ({
      part: index === 0 ? { ...part, ids: item.delivers } : { ...part, ids: [] },
      // An escalation of a critical alert is a page that matters; an ack answers a call.
      criticalFirst: index === 0 && (item.reason === 'ack' || critical),
      events: item.events,
    }));
  });
}

function decideChannel(
  config: Config,
  channel: ChannelConfig,
  previous: ChannelState,
  events: readonly HeldEvent[],
  nowMs: number,
  direct: readonly Direct[],
  options: Required<Omit<DecideOptions, 'followAtMost'>>,
): { state: ChannelState | undefined; messages: Outbound[]; dueAtMs: number | undefined } {
  const { foldAbove, release } = options;
  const zone = config.timezone;
  const work: ChannelWork = {
    groups: new Map(Object.entries(previous.groups)),
    smsSentAt: previous.smsSentAt.filter((at) => at > nowMs - HOUR_MS).sort((a, b) => a - b),
    smsHeld: [...previous.smsHeld],
    deferred: [...previous.deferred],
  };
  const inWindow = isActive(channel.active, nowMs, zone);
  const active = inWindow || release;
  route(channel, work, events, inWindow, nowMs);
  // Released outside the window: the held groups join the digest (one message, not several).
  if (release && !inWindow) flushGroups(config, channel, work, false, nowMs, true);

  const decided: Candidate[] = [];
  if (active && work.deferred.length > 0) {
    const digest = candidates(
      config,
      channel,
      'deferred',
      'active-hours',
      work.deferred,
      nowMs,
      false,
      !inWindow,
    );
    for (const candidate of digest) decided.push(candidate);
    work.deferred = [];
  }
  for (const candidate of flushGroups(config, channel, work, active, nowMs, release)) {
    decided.push(candidate);
  }
  for (const candidate of directCandidates(config, channel, direct, nowMs)) {
    decided.push(candidate);
  }
  const messages = capSms(channel, work, decided, nowMs);

  // Held SMS go as one digest once the hour has room (and the channel is active).
  const room = release || smsRoomAt(channel, work.smsSentAt) <= nowMs;
  if (active && work.smsHeld.length > 0 && room) {
    const [first, ...rest] = compose({
      config,
      channel,
      reason: 'capped',
      groupKey: 'sms-cap',
      events: work.smsHeld,
      nowMs,
      withSms: true,
    });
    // The digest's events were emailed already: it delivers nothing new, so one SMS suffices.
    for (const part of [first, ...rest]) {
      if (part === undefined) continue;
      messages.push({ message: part.message, delivers: [], smsHeld: false });
    }
    work.smsSentAt.push(nowMs);
    work.smsHeld = [];
  }

  const due: number[] = [];
  for (const group of work.groups.values()) if (group.dueAt !== undefined) due.push(group.dueAt);
  if (work.deferred.length > 0) due.push(nextWindowStart(channel.active, nowMs, zone));
  if (work.smsHeld.length > 0) {
    const room = Math.max(smsRoomAt(channel, work.smsSentAt), nowMs);
    due.push(nextWindowStart(channel.active, room, zone));
  }
  const state: ChannelState = {
    groups: Object.fromEntries(
      [...work.groups].map(([key, group]) => [
        key,
        { ...group, held: trimTexts(foldEvents(group.held, foldAbove), RICH_ALERTS) },
      ]),
    ),
    smsSentAt: work.smsSentAt,
    smsHeld: trimTexts(foldEvents(work.smsHeld, foldAbove), 0),
    deferred: trimTexts(foldEvents(work.deferred, foldAbove), RICH_ALERTS),
  };
  const empty =
    work.groups.size === 0 &&
    work.smsSentAt.length === 0 &&
    work.smsHeld.length === 0 &&
    work.deferred.length === 0;
  return {
    state: empty ? undefined : state,
    messages,
    dueAtMs: due.length === 0 ? undefined : due.reduce((a, b) => Math.min(a, b)),
  };
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
 * (silences, acknowledgements) and the time, and decides the messages that go out now. First
 * the people's side (`attend.ts`): silences record matching events instead of sending them
 * (and tell a still-firing alert when they end), acknowledged alerts' repeats are recorded,
 * not sent, a call to `ack.did` acknowledges and is confirmed, due escalation steps go out.
 * Then per channel: grouped (`group.by`, `wait`, `interval`), deferred outside active hours
 * into one digest, the SMS held past `smsPerHour` for one digest SMS. Called with no events it
 * is the clock tick: held groups, digests, escalations and silence ends that are due go out.
 * `nextDueAtMs` is when it next has work without a new event.
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
  const people = attend(config, acted, events, nowMs, how.followAtMost);
  const state = people.state;
  const channels: Record<string, ChannelState> = {};
  const messages: Outbound[] = [];
  let nextDueAtMs: number | undefined = people.dueAtMs;
  for (const channel of Object.values(config.channels)) {
    const mine = people.routed
      .filter((item) => item.channels.includes(channel.name))
      .map((item) => item.event);
    const result = decideChannel(
      config,
      channel,
      state.channels[channel.name] ?? EMPTY_CHANNEL,
      mine,
      nowMs,
      people.direct.get(channel.name) ?? [],
      how,
    );
    if (result.state !== undefined) channels[channel.name] = result.state;
    for (const message of result.messages) messages.push(message);
    if (result.dueAtMs !== undefined) {
      nextDueAtMs =
        nextDueAtMs === undefined ? result.dueAtMs : Math.min(nextDueAtMs, result.dueAtMs);
    }
  }
  return {
    state: { ...state, version: NOTIFIER_STATE_VERSION, channels },
    messages,
    nextDueAtMs,
    muted: people.muted,
    unfollowed: people.unfollowed,
  };
}
