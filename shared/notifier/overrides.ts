import { findOverride, keptOverrides } from '../oncall/overrides';
import type { Override } from '../oncall/types';
import type { NotifierState } from './types';
import { NOTIFIER_STATE_VERSION } from './types';

/*
 * Overrides of rotations (contract section 8) live in the notifier's state beside the
 * silences: written by `telealert oncall override` (conditional on the state's revision, as
 * silences are) and read by each notifier step to stamp its messages with the person on call.
 */

/** The state with its overrides replaced (the key absent while there are none). */
function withOverrides(state: NotifierState, overrides: readonly Override[]): NotifierState {
  const { overrides: _old, ...rest } = state;
  return overrides.length > 0 ? { ...rest, overrides } : rest;
}

/** Adds an override (the same id again changes nothing); ended ones past retention are dropped. */
export function addOverride(
  state: NotifierState | undefined,
  override: Override,
  nowMs: number,
): NotifierState {
  const current = state ?? { version: NOTIFIER_STATE_VERSION, channels: {} };
  const kept = keptOverrides(current.overrides ?? [], nowMs);
  if (kept.some((known) => known.id === override.id)) return withOverrides(current, kept);
  return withOverrides(current, [...kept, override]);
}

/**
 * Removes an override by its id (or a unique prefix of it): the rotation, or an older override,
 * decides again where it held.
 *
 * @throws OverrideError when no override has this id.
 */
export function removeOverride(
  state: NotifierState | undefined,
  id: string,
): { readonly state: NotifierState; readonly override: Override } {
  const current = state ?? { version: NOTIFIER_STATE_VERSION, channels: {} };
  const overrides = current.overrides ?? [];
  const override = findOverride(overrides, id);
  return {
    state: withOverrides(
      current,
      overrides.filter((known) => known.id !== override.id),
    ),
    override,
  };
}
