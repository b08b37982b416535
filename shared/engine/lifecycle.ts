import type { NotificationStatus } from '../messages/types';
import type { RuleConfig } from '../types/config';
import type { Observation } from './aggregate';
import type { AlertInstance } from './types';

/** The timing part of a rule the state machine needs. */
export type RuleTiming = Pick<RuleConfig, 'name' | 'forMs' | 'keepFiringMs' | 'repeatMs'>;

/** An instance being built (`step` hands it out read-only). */
type Draft = { -readonly [K in keyof AlertInstance]: AlertInstance[K] };

/** One instance after one evaluation, and what (if anything) to tell. */
export interface Step {
  /** Undefined: the instance is gone (dropped or resolved). */
  readonly next: AlertInstance | undefined;
  /** A notification is owed, describing `about`. */
  readonly notify?: NotificationStatus;
  readonly about?: AlertInstance;
}

function repeatDue(rule: RuleTiming, instance: AlertInstance, nowMs: number): boolean {
  return (
    rule.repeatMs !== undefined &&
    instance.lastSentAt !== undefined &&
    nowMs - instance.lastSentAt >= rule.repeatMs
  );
}

/**
 * A firing instance still firing: a repeat when one is due, telling the record as seen now
 * (a compact instance stores no context: the notification carries the one seen now).
 */
function stillFiring(
  rule: RuleTiming,
  instance: AlertInstance,
  nowMs: number,
  observation: Observation,
): Step {
  if (!repeatDue(rule, instance, nowMs)) return { next: instance };
  const next = { ...instance, lastSentAt: nowMs, context: stored(observation) };
  return { next, notify: 'firing', about: told(next, observation) };
}

/** No context: what a compact instance stores (one shared object, never written to). */
const NO_CONTEXT: Readonly<Record<string, string>> = Object.freeze({});

/** The context an instance keeps: none when the observation says it is never rendered. */
function stored(observation: Observation): Readonly<Record<string, string>> {
  return observation.compactContext === true ? NO_CONTEXT : observation.context;
}

/** The instance a notification describes: with the record as seen now. */
function told(instance: AlertInstance, observation: Observation): AlertInstance {
  return instance.context === observation.context
    ? instance
    : { ...instance, context: observation.context };
}

/** Holding again ends a keepFiring hold: the next dip is measured afresh. */
function unheld(instance: AlertInstance): AlertInstance {
  if (instance.keepFiringSince === undefined) return instance;
  const { keepFiringSince: _ended, ...rest } = instance;
  return rest;
}

/**
 * One alert instance through one evaluation (contract section 3, prometheus' state machine):
 * - inactive -> pending when the condition first holds (`activeAt` = now);
 * - pending -> firing at the first evaluation where `now - activeAt >= for` (at once when
 *   `for` is 0); a pending instance whose condition stops holding is dropped silently;
 * - while firing, a repeat at the first evaluation where `now - lastSentAt >= repeat` and the
 *   condition holds (an instance held only by `keepFiring` does not repeat);
 * - firing -> resolved at the first evaluation where the condition has not held for
 *   `keepFiring`, measured as prometheus' `keep_firing_for` is: from the first evaluation where
 *   it stopped holding (`keepFiringSince`), so `now - keepFiringSince >= keepFiring`. With
 *   `keepFiring` one evaluation interval long, the first false evaluation still fires and the
 *   next resolves. The `resolved` notification is owed; with `resolved: false` it is untold
 *   (`Notification.untold`: the notifier's cue that the firing is over, never a message alone).
 *
 * `observation` undefined means the instance was not seen at all and, for a snapshot
 * source, that its condition no longer holds. Pure: the previous instance is not modified.
 */
export function step(
  rule: RuleTiming,
  previous: AlertInstance | undefined,
  observation: Observation | undefined,
  nowMs: number,
): Step {
  if (observation?.holds) {
    // Built field by field, not from spreads of small objects: a steady state steps 10,000
    // firing payments every poll. Same fields in the same order as `{ ...previous, ... }`.
    const seen: Draft =
      previous === undefined
        ? {
            rule: rule.name,
            key: observation.key,
            state: 'pending',
            activeAt: nowMs,
            labels: observation.labels,
            lastTrueAt: nowMs,
            lastSeenAt: nowMs,
            context: stored(observation),
          }
        : {
            ...unheld(previous),
            lastTrueAt: nowMs,
            lastSeenAt: nowMs,
            context: stored(observation),
          };
    if (observation.value !== undefined) seen.value = observation.value;
    if (observation.createdAtMs !== undefined) seen.createdAtMs = observation.createdAtMs;
    if (seen.state === 'firing') return stillFiring(rule, seen, nowMs, observation);
    if (nowMs - seen.activeAt < rule.forMs) return { next: seen };
    const fired: AlertInstance = {
      ...seen,
      state: 'firing',
      firedAt: nowMs,
      lastSentAt: nowMs,
      context: stored(observation),
    };
    return { next: fired, notify: 'firing', about: told(fired, observation) };
  }
  if (previous === undefined) return { next: undefined };
  if (previous.state === 'pending') return { next: undefined };
  // The first evaluation where the condition does not hold starts the hold (so does the next
  // one for a state written before `keepFiringSince` existed).
  const since = previous.keepFiringSince ?? nowMs;
  const seen: AlertInstance = observation
    ? {
        ...previous,
        lastSeenAt: nowMs,
        keepFiringSince: since,
        context: stored(observation),
        ...(observation.value === undefined ? {} : { value: observation.value }),
      }
    : since === previous.keepFiringSince
      ? previous
      : { ...previous, keepFiringSince: since };
  // Held by keepFiring: still firing, but no repeat goes out while the condition is false (a
  // repeat would claim a breach that is not happening). A compact instance keeps the record as
  // seen now meanwhile: a payment may resolve later without being seen again.
  if (nowMs - since < rule.keepFiringMs) {
    return { next: observation?.compactContext === true ? told(seen, observation) : seen };
  }
  return {
    next: undefined,
    notify: 'resolved',
    about: observation ? told(seen, observation) : seen,
  };
}
