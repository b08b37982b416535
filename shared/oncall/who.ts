import type { RotationConfig } from '../types/config';
import { handoffAt, memberOf, shiftIndexAt } from './shifts';
import type { Handoff, OnCall, Override } from './types';

/*
 * Who is on call: a pure function of the rotation, the overrides and a time (contract section
 * 8). The rotation's turn, unless an override of that rotation holds the instant: then its
 * person, the override added last winning where several overlap (PagerDuty's rule).
 */

/** Overrides last at most this long (`makeOverride`), which bounds every walk below. */
export const MAX_OVERRIDE_MS = 31 * 86_400_000;

/** The override of `rotation` in force at `atMs`: the one added last, among those holding it. */
export function overrideAt(
  rotation: string,
  overrides: readonly Override[],
  atMs: number,
): Override | undefined {
  let found: Override | undefined;
  for (const override of overrides) {
    if (override.rotation !== rotation || override.from > atMs || atMs >= override.until) continue;
    if (found === undefined || override.createdAt >= found.createdAt) found = override;
  }
  return found;
}

/** The person on call at `atMs`, and the override that put them there. */
function personAt(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
): { readonly who: string; readonly override?: Override } {
  const override = overrideAt(rotation.name, overrides, atMs);
  if (override !== undefined) return { who: override.who, override };
  return { who: memberOf(rotation, shiftIndexAt(rotation, atMs, zone)) };
}

/** The first instant after `atMs` where the answer may change: a handoff or an override's edge. */
function nextEdge(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
): number {
  // A rotation of one member changes nobody at its handoffs.
  let edge =
    rotation.members.length === 1
      ? Number.POSITIVE_INFINITY
      : handoffAt(rotation, shiftIndexAt(rotation, atMs, zone) + 1, zone);
  for (const override of overrides) {
    if (override.rotation !== rotation.name) continue;
    if (override.from > atMs && override.from < edge) edge = override.from;
    if (override.until > atMs && override.until < edge) edge = override.until;
  }
  return edge;
}

/** The last instant at or before `atMs` where the answer may have changed. */
function previousEdge(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
): number {
  let edge =
    rotation.members.length === 1
      ? Number.NEGATIVE_INFINITY
      : handoffAt(rotation, shiftIndexAt(rotation, atMs, zone), zone);
  for (const override of overrides) {
    if (override.rotation !== rotation.name) continue;
    if (override.from <= atMs && override.from > edge) edge = override.from;
    if (override.until <= atMs && override.until > edge) edge = override.until;
  }
  return edge;
}

/**
 * How far a walk looks for a change of person, either way: past every override of the
 * rotation, then a full round of turns and one more (a rotation of several people changes hands
 * within it; one of a single member never does).
 */
function horizon(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
): { readonly from: number; readonly to: number } {
  let first = atMs;
  let last = atMs;
  for (const override of overrides) {
    if (override.rotation !== rotation.name) continue;
    first = Math.min(first, override.from);
    last = Math.max(last, override.until);
  }
  const round = (rotation.members.length + 1) * rotation.shiftMs + 2 * 3_600_000;
  return { from: first - round, to: last + round };
}

/**
 * Who is on call for `rotation` at `atMs` (`zone`: the config's), since when, and until when
 * (the next instant someone else is). Pure.
 */
export function onCallAt(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
): OnCall {
  const now = personAt(rotation, overrides, atMs, zone);
  const limit = horizon(rotation, overrides, atMs);
  let until: number | undefined;
  for (let edge = nextEdge(rotation, overrides, atMs, zone); edge <= limit.to; ) {
    if (personAt(rotation, overrides, edge, zone).who !== now.who) {
      until = edge;
      break;
    }
    edge = nextEdge(rotation, overrides, edge, zone);
  }
  let since = previousEdge(rotation, overrides, atMs, zone);
  while (since > limit.from && personAt(rotation, overrides, since - 1, zone).who === now.who) {
    since = previousEdge(rotation, overrides, since - 1, zone);
  }
  return {
    who: now.who,
    // A single member with no override before: on call as far back as the walk looks.
    since: Math.max(since, limit.from),
    until,
    ...(now.override === undefined ? {} : { override: now.override }),
  };
}

/** The next `count` changes of person after `atMs`, in order (fewer when nobody else takes over). */
export function nextHandoffs(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
  count: number,
): Handoff[] {
  const out: Handoff[] = [];
  let cursor = atMs;
  while (out.length < count) {
    const current = onCallAt(rotation, overrides, cursor, zone);
    if (current.until === undefined) break;
    const next = personAt(rotation, overrides, current.until, zone);
    const ending = overrideAt(rotation.name, overrides, current.until - 1);
    const override = next.override ?? (ending?.until === current.until ? ending : undefined);
    out.push({
      at: current.until,
      from: current.who,
      to: next.who,
      ...(override === undefined ? {} : { override }),
    });
    cursor = current.until;
  }
  return out;
}
