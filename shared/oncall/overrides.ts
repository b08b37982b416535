import { createHash } from 'node:crypto';
import { OverrideError } from './errors';
import type { Override } from './types';
import { MAX_OVERRIDE_MS } from './who';

/** Ended overrides stay listed this long (`telealert oncall override list`), then are forgotten. */
export const OVERRIDE_RETENTION_MS = 24 * 3_600_000;

export interface OverrideInput {
  readonly rotation: string;
  readonly who: string;
  readonly from: number;
  readonly until: number;
  readonly createdBy: string;
  readonly createdAt: number;
}

/**
 * A new override, its id derived from what it says (the same override added twice is one, and
 * a replay is reproducible).
 *
 * @throws OverrideError when it ends before it starts, lasts more than 31 days, or names no one.
 */
export function makeOverride(input: OverrideInput): Override {
  if (input.rotation.trim() === '' || input.who.trim() === '') {
    throw new OverrideError('an override needs a rotation and a person');
  }
  if (!(input.until > input.from)) throw new OverrideError('an override must end after it starts');
  if (input.until - input.from > MAX_OVERRIDE_MS) {
    throw new OverrideError(
      'an override lasts at most 31 days: change the rotation in the rules file for longer',
    );
  }
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      input.rotation,
      input.who,
      input.from,
      input.until,
      input.createdBy,
      input.createdAt,
    ]),
  );
  return { id: hash.digest('hex').slice(0, 12), ...input };
}

/** Overrides with those ended past the retention forgotten. */
export function keptOverrides(overrides: readonly Override[], nowMs: number): Override[] {
  return overrides.filter((override) => override.until > nowMs - OVERRIDE_RETENTION_MS);
}

/** The override whose id is `id` or starts with it (a unique prefix). */
export function findOverride(overrides: readonly Override[], id: string): Override {
  const exact = overrides.find((override) => override.id === id);
  if (exact !== undefined) return exact;
  const found = id === '' ? [] : overrides.filter((override) => override.id.startsWith(id));
  if (found.length === 1) return found[0] as Override;
  throw new OverrideError(
    found.length > 1
      ? `"${id}" starts ${found.length} override ids: give more of it`
      : `no override "${id}" (telealert oncall override list shows them)`,
  );
}
