import { OverrideError } from '../oncall/errors';
import type { Override } from '../oncall/types';
import { AckError, SilenceEndedError, SilenceError } from './errors';
import { formatLimit, MAX_FOLLOWED_ALERTS } from './follow';
import { addOverride, removeOverride } from './overrides';
import { SILENCE_RETENTION_MS } from './silence';
import type { Acknowledgement, MutedEvent, NotifierState, Silence, TrackedAlert } from './types';
import { NOTIFIER_STATE_VERSION } from './types';

/**
 * What people do to the notifier (contract sections 6 and 8): add or expire a silence,
 * acknowledge alerts by key or by rule, add or remove an override of a rotation.
 * `telealert silence|ack|oncall override` and replay's timeline actions.
 */
export type PersonAction =
  | { readonly kind: 'silence'; readonly silence: Silence }
  | { readonly kind: 'override'; readonly override: Override }
  | { readonly kind: 'remove-override'; readonly id: string }
  | { readonly kind: 'expire'; readonly id: string }
  | {
      readonly kind: 'ack';
      readonly key?: string;
      readonly rule?: string;
      readonly by: string;
      readonly via?: Acknowledgement['via'];
    };

function base(state: NotifierState | undefined): NotifierState {
  return state ?? { version: NOTIFIER_STATE_VERSION, channels: {} };
}

/** The state with the people's side written only when it holds something. */
export function withPeople(
  state: NotifierState,
  silences: readonly Silence[],
  alerts: Readonly<Record<string, TrackedAlert>>,
  ackCalls: Readonly<Record<string, number>>,
): NotifierState {
  const { silences: _s, alerts: _a, ackCalls: _c, ...rest } = state;
  return {
    ...rest,
    ...(silences.length > 0 ? { silences } : {}),
    ...(Object.keys(alerts).length > 0 ? { alerts } : {}),
    ...(Object.keys(ackCalls).length > 0 ? { ackCalls } : {}),
  };
}

/** Silences with ended ones past the retention forgotten. */
export function keptSilences(silences: readonly Silence[], nowMs: number): Silence[] {
  return silences.filter((silence) => silence.endsAt > nowMs - SILENCE_RETENTION_MS);
}

/** The silences with the events this step recorded as silenced by each counted (`silenced`). */
export function countSilenced(
  silences: readonly Silence[],
  muted: readonly MutedEvent[],
): Silence[] {
  const counts = new Map<string, number>();
  for (const item of muted) {
    if (item.reason === 'silenced') counts.set(item.by, (counts.get(item.by) ?? 0) + 1);
  }
  if (counts.size === 0) return [...silences];
  return silences.map((silence) => {
    const more = counts.get(silence.id);
    return more === undefined ? silence : { ...silence, silenced: (silence.silenced ?? 0) + more };
  });
}

/** Adds a silence (the same id again changes nothing). */
export function addSilence(state: NotifierState | undefined, silence: Silence): NotifierState {
  const current = base(state);
  const silences = current.silences ?? [];
  if (silences.some((known) => known.id === silence.id)) return current;
  return withPeople(current, [...silences, silence], current.alerts ?? {}, current.ackCalls ?? {});
}

/**
 * Ends a silence now (Alertmanager's expire): it stays listed, ended; alerts it kept untold are
 * told at the next step.
 *
 * @throws SilenceError when no silence has this id (or a unique prefix of it);
 *   SilenceEndedError when it has already ended (expired, or expired before).
 */
export function expireSilence(
  state: NotifierState | undefined,
  id: string,
  nowMs: number,
): { readonly state: NotifierState; readonly silence: Silence } {
  const current = base(state);
  const silences = current.silences ?? [];
  const found = silences.filter((silence) => silence.id.startsWith(id));
  const only = found.length === 1 ? found[0] : silences.find((silence) => silence.id === id);
  if (only === undefined || id === '') {
    throw new SilenceError(
      found.length > 1
        ? `"${id}" starts ${found.length} silence ids: give more of it`
        : `no silence "${id}" (telealert silence list shows them)`,
    );
  }
  if (only.endsAt <= nowMs) throw new SilenceEndedError(only.id, only.endsAt);
  const ended: Silence = { ...only, endsAt: nowMs };
  return {
    state: withPeople(
      current,
      silences.map((silence) => (silence.id === only.id ? ended : silence)),
      current.alerts ?? {},
      current.ackCalls ?? {},
    ),
    silence: ended,
  };
}

/**
 * Acknowledges the followed firing alerts with this key, or of this rule: their repeats and
 * escalation stop until they resolve. Alerts already acknowledged keep their first
 * acknowledgement, except one by call that a person acknowledging otherwise replaces: a call
 * may be forged and lasts `ack.timeout` (contract 6.1 rule 7), `telealert ack` and chat do not.
 *
 * @throws AckError when nothing matches (no such firing alert, or its rule neither repeats
 *   nor escalates, so there is nothing to stop).
 */
export function acknowledge(
  state: NotifierState | undefined,
  target: { readonly key?: string; readonly rule?: string },
  ack: Acknowledgement,
): { readonly state: NotifierState; readonly keys: readonly string[] } {
  const current = base(state);
  const alerts = { ...(current.alerts ?? {}) };
  const keys = Object.keys(alerts).filter((key) =>
    target.key !== undefined ? key === target.key : alerts[key]?.rule === target.rule,
  );
  if (keys.length === 0) {
    const what = target.key !== undefined ? `alert ${target.key}` : `rule ${target.rule}`;
    throw new AckError(
      `nothing to acknowledge for ${what}: no followed firing alert that repeats or escalates (telealert alerts lists them; past ${formatLimit(MAX_FOLLOWED_ALERTS)} firing alerts, the newest are not followed)`,
    );
  }
  for (const key of keys) {
    const alert = alerts[key] as TrackedAlert;
    const replaces = alert.ack === undefined || (alert.ack.via === 'call' && ack.via !== 'call');
    if (replaces) alerts[key] = { ...alert, ack };
  }
  return {
    state: withPeople(current, current.silences ?? [], alerts, current.ackCalls ?? {}),
    keys,
  };
}

/**
 * Applies one action. An acknowledgement that finds nothing changes nothing (replay goes on:
 * a timeline may acknowledge an alert that already resolved).
 */
export function applyAction(
  state: NotifierState | undefined,
  action: PersonAction,
  nowMs: number,
): NotifierState {
  if (action.kind === 'silence') return addSilence(state, action.silence);
  if (action.kind === 'override') return addOverride(state, action.override, nowMs);
  try {
    if (action.kind === 'remove-override') return removeOverride(state, action.id).state;
    if (action.kind === 'expire') return expireSilence(state, action.id, nowMs).state;
    const target = action.key !== undefined ? { key: action.key } : { rule: action.rule ?? '' };
    return acknowledge(state, target, { by: action.by, at: nowMs, via: action.via ?? 'cli' }).state;
  } catch (error) {
    if (
      error instanceof AckError ||
      error instanceof SilenceError ||
      error instanceof OverrideError
    ) {
      return base(state);
    }
    throw error;
  }
}
