import type { Config, RuleConfig } from '../types/config';
import type { HeldEvent, TrackedAlert } from './types';
import type { Untold } from './untold';

/** A repeat comes at most a poll after `repeat`; past this much more it was a new firing. */
const REPEAT_SLACK_MS = 60_000;

const BUILT_IN_RULES = new Set(['source_unavailable', 'too_many_alerts']);

export function ruleOf(config: Config, name: string): RuleConfig | undefined {
  return config.rules.find((rule) => rule.name === name);
}

/** An acknowledgement changes something only for an alert that repeats or escalates. */
export function worthFollowing(rule: RuleConfig | undefined): boolean {
  return rule !== undefined && (rule.repeatMs !== undefined || (rule.escalate?.length ?? 0) > 0);
}

/**
 * The first event of a firing (not a repeat of it). An event decided before the engine said
 * which firing it belongs to counts as one.
 */
export function isFirstFiring(event: HeldEvent): boolean {
  return event.status === 'firing' && (event.firedAt === undefined || event.firedAt === event.at);
}

/**
 * A critical alert's page: its first firing, or the first telling of a firing a silence kept
 * untold (not on a channel that heard it meanwhile, `again`). Brings its group forward to
 * `wait` and passes the SMS cap (contract 6.1 rule 2; an escalation deferred by active hours
 * may page too: `pagesIn` in pages.ts).
 */
export function isPage(event: HeldEvent): boolean {
  if (event.severity !== 'critical' || event.again === true) return false;
  return isFirstFiring(event) || event.firstTold === true;
}

/**
 * Whether a firing event of an alert already followed is a repeat of the same firing. The
 * engine says which firing an event belongs to (`firedAt`). For an event decided before it did:
 * a rule that tells its resolutions sends a resolution before any new firing; one that does not
 * (`resolved: false`) repeats within `repeat` and a poll, so a firing later than that is new.
 */
export function isRepeat(config: Config, tracked: TrackedAlert, event: HeldEvent): boolean {
  if (event.firedAt !== undefined) return event.firedAt === tracked.firedAt;
  const rule = ruleOf(config, tracked.rule);
  if (rule === undefined) return BUILT_IN_RULES.has(tracked.rule);
  if (rule.resolved) return true;
  if (rule.repeatMs === undefined) return false;
  return event.at <= tracked.lastFiringAt + rule.repeatMs + pollSlack(config, rule);
}

function pollSlack(config: Config, rule: RuleConfig): number {
  return config.sources[rule.source].everyMs + REPEAT_SLACK_MS;
}

/**
 * How long a followed alert of a rule gone from the rules file waits for its resolution: the
 * engine tells it at the next successful poll of its source (a source no rule reads any more
 * is polled too, asking the API nothing), so three of the slowest source's periods, an hour at
 * least. Past it (its source failing or its poller down all that while) it is forgotten.
 */
function retiredKeepMs(config: Config): number {
  const slowest = Math.max(config.sources.live_calls.everyMs, config.sources.payments.everyMs);
  return Math.max(3_600_000, 3 * slowest);
}

/**
 * A followed alert whose rule the rules file no longer has (removed or renamed, contract 6.1
 * rule 8), as the notifier keeps it until the engine's resolution comes: marked `retiredAt`, its
 * escalation cut to the steps done (so the channels they reached still hear the end, rule 6,
 * and no further step goes); a firing a silence keeps untold is told when it ends, as it still
 * fires until the engine ends it. Others as they are.
 */
export function retire(config: Config, tracked: TrackedAlert, nowMs: number): TrackedAlert {
  if (tracked.retiredAt !== undefined || BUILT_IN_RULES.has(tracked.rule)) return tracked;
  const rule = ruleOf(config, tracked.rule);
  if (rule !== undefined) return reroute(config, rule, tracked);
  // A firing a silence keeps untold stays so: it still fires until the engine ends it, so the
  // silence's end tells it (contract section 6).
  const { escalate, escalated, ...rest } = tracked;
  const done = (escalate ?? []).slice(0, escalated ?? 0);
  return settle({
    ...rest,
    ...(done.length > 0 ? { escalate: done, escalated: done.length } : {}),
    retiredAt: nowMs,
  });
}

/**
 * An alert's escalation is frozen when it fires; a step still to come that names a channel the
 * rules file no longer has (removed or renamed) would page nobody, so the steps to come are read
 * again from its rule as the file now says them (a renamed channel's new name, contract 6.1
 * rule 8). The steps done stay as they were: their channels hear the end (rule 6).
 */
function reroute(config: Config, rule: RuleConfig, tracked: TrackedAlert): TrackedAlert {
  const steps = tracked.escalate ?? [];
  const done = tracked.escalated ?? 0;
  const gone = steps
    .slice(done)
    .some((step) => step.notify.some((name) => config.channels[name] === undefined));
  if (!gone) return tracked;
  const { escalate: _steps, escalated: _done, ...rest } = tracked;
  const next = [...steps.slice(0, done), ...(rule.escalate ?? []).slice(done)];
  return settle({ ...rest, ...(next.length > 0 ? { escalate: next, escalated: done } : {}) });
}

/**
 * A followed alert that can be forgotten without its resolution: its rule is gone and it waited
 * for the engine's resolution long enough. Every firing of a rule of the file ends in an event,
 * told or untold (`resolved: false`), so one whose repeats stopped coming (the
 * pollers down) still fires as far as the notifier knows: an acknowledgement by call that runs
 * out tells it again (contract 6.1 rule 7).
 */
export function stale(config: Config, tracked: TrackedAlert, nowMs: number): boolean {
  if (ruleOf(config, tracked.rule) !== undefined || BUILT_IN_RULES.has(tracked.rule)) return false;
  return tracked.retiredAt === undefined || nowMs > tracked.retiredAt + retiredKeepMs(config);
}

/**
 * A firing as it starts being followed: its escalation frozen from its rule, its event kept,
 * with what a silence kept of it (`untold`); unheard until a message tells it to one of its
 * own channels (`heardOn`).
 */
export function startFollowing(
  config: Config,
  event: HeldEvent,
  channels: readonly string[],
  untold: Untold,
  nowMs: number,
): TrackedAlert {
  const escalate = ruleOf(config, event.rule)?.escalate ?? [];
  const started: TrackedAlert = {
    rule: event.rule,
    source: event.source,
    severity: event.severity,
    labels: event.labels,
    channels,
    firedAt: event.firedAt ?? event.at,
    lastFiringAt: event.at,
    ...(escalate.length > 0 ? { escalate, escalated: 0 } : {}),
    event: kept(event),
    ...untold,
    ...((untold.heardOn?.length ?? 0) > 0 ? {} : { unheard: true as const }),
  };
  // A silence's keeping of a rule a deploy removed since (an outage's backlog): followed as
  // retired, so it waits for the resolution the engine tells of it (rule 8).
  return settle(retire(config, started, nowMs));
}

/** The event kept with a followed alert: what a later message needs, without the email text. */
export function kept(event: HeldEvent): HeldEvent {
  const { text: _text, ...rest } = event;
  return rest;
}

/**
 * Whether a followed alert still needs its event: an untold firing, an acknowledgement by call
 * that lapses (the alert is told again then), or a step to come.
 */
export function needsEvent(tracked: TrackedAlert): boolean {
  return (
    tracked.untoldSince !== undefined ||
    tracked.ack?.until !== undefined ||
    (tracked.ack === undefined && (tracked.escalated ?? 0) < (tracked.escalate?.length ?? 0))
  );
}

/**
 * Whether an acknowledgement holds at `nowMs`: one by call lasts until its `until` (contract
 * 6.1 rule 7), any other until the alert resolves.
 */
export function ackHolds(ack: TrackedAlert['ack'], nowMs: number): boolean {
  return ack !== undefined && (ack.until === undefined || nowMs < ack.until);
}

/** The alert without its event once nothing can tell it again. */
export function settle(tracked: TrackedAlert): TrackedAlert {
  if (needsEvent(tracked) || tracked.event === undefined) return tracked;
  const { event: _event, ...rest } = tracked;
  return rest;
}

/** The alert as its own lines in an ack message: its latest firing. */
export function alertAsEvent(key: string, tracked: TrackedAlert): HeldEvent {
  return {
    id: `${key}|firing|${new Date(tracked.lastFiringAt).toISOString()}`,
    at: tracked.lastFiringAt,
    source: tracked.source,
    rule: tracked.rule,
    key,
    status: 'firing',
    severity: tracked.severity,
    labels: tracked.labels,
    value: tracked.event?.value ?? null,
    sms: tracked.event?.sms ?? '',
    subject: tracked.event?.subject ?? '',
  };
}

/** The channels an alert's escalation has gone to (its steps done). */
export function escalatedTo(tracked: TrackedAlert): Set<string> {
  const out = new Set<string>();
  (tracked.escalate ?? []).slice(0, tracked.escalated ?? 0).forEach((step) => {
    for (const name of step.notify) out.add(name);
  });
  return out;
}

/** The channels its escalation steps told its firing (not those a silence kept it from). */
export function toldByEscalation(tracked: TrackedAlert): Set<string> {
  const out = escalatedTo(tracked);
  for (const name of tracked.escalationKept ?? []) out.delete(name);
  return out;
}

/** A message told the alert's current firing on this channel: its rule's, or an escalation's. */
export function heardBy(tracked: TrackedAlert, channel: string): boolean {
  return tracked.heardOn?.includes(channel) === true || toldByEscalation(tracked).has(channel);
}

/** The channels an alert has reached: its own, and those its escalation has gone to. */
export function reachedChannels(tracked: TrackedAlert): Set<string> {
  return new Set([...tracked.channels, ...escalatedTo(tracked)]);
}

/**
 * When an escalation counts its steps from (contract 6.1 rule 4): the first message that told
 * the firing to its own channels. Undefined while none has (held by grouping, deferred, or
 * silenced); an alert followed before this was kept counts from its firing.
 */
export function heardAt(tracked: TrackedAlert): number | undefined {
  if (tracked.unheard === true) return undefined;
  return tracked.heardAt ?? tracked.firedAt;
}
