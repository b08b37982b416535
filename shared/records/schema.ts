import type { SourceName } from '../types/config';
import { DERIVED_FIELDS, FIELDS, type FieldKind, IDENTITY_FIELD } from './fields';
import { INVALID, normaliseValue, readIdentity } from './normalise';
import { NORMALISERS } from './reader';
import type { FieldValue } from './types';

/*
 * A source's record fields, its identity and its alias, and the odd record's reading: every
 * field read on its own, so one unreadable column leaves only that field out. No zod: the
 * functions read their odd rows here (test/records/zod-reference.ts holds the schema this
 * reading is property-tested against).
 */

/** What the reading makes of one raw record (the parser adds `source` and `raw`). */
export interface NormalisedRecord {
  readonly key: string;
  readonly createdAtMs?: number;
  readonly fields: Readonly<Record<string, FieldValue>>;
}

/** Field name -> kind, the API's names only (no derived fields), per source. */
export const RECORD_FIELDS: Readonly<
  Record<SourceName, ReadonlyArray<readonly [string, FieldKind]>>
> = {
  live_calls: apiFields('live_calls'),
  payments: apiFields('payments'),
};

function apiFields(source: SourceName): ReadonlyArray<readonly [string, FieldKind]> {
  const derived: readonly string[] = DERIVED_FIELDS;
  return Object.entries(FIELDS[source]).filter(([name]) => !derived.includes(name));
}

/**
 * The identity of a record. Payments: `id`. Live calls: `call_id`; a row without one falls
 * back to its record `id`, keyed `id:<id>` so it can never collide with a real call ID (it
 * still counts in aggregate rules, which skipping it would silently undercount). A record
 * with neither is skipped. Reads the normalised fields, so both parsing paths agree.
 */
export function recordKey(
  source: SourceName,
  fields: Readonly<Record<string, unknown>>,
): string | undefined {
  const key = readIdentity(fields[IDENTITY_FIELD[source]]);
  if (key !== undefined || source !== 'live_calls') return key;
  const id = readIdentity(fields.id);
  return id === undefined ? undefined : `id:${id}`;
}

/**
 * Copies the documented alias: the docs name the gateway field both ways. The lenient
 * reading's way with normalised fields; `readGateway` reads a raw row the same way.
 */
export function applyAliases(
  source: SourceName,
  fields: Record<string, FieldValue>,
  raw: Readonly<Record<string, unknown>>,
  zone: string,
): void {
  if (source === 'payments' && (fields.gateway === undefined || fields.gateway === '')) {
    const alias = normaliseValue('text', raw.payment_gateway, zone);
    if (alias !== undefined && alias !== INVALID) fields.gateway = alias;
  }
}

/** The odd record read field by field: what it keeps, or why it is skipped. */
export type LenientOutcome = { readonly record: NormalisedRecord } | { readonly reason: string };

/**
 * Reads every documented field of `raw` that is readable as its kind and leaves the others out
 * (they stay in `raw`): one bad column must not hide a ringing call. Skipped (a `reason`) only
 * without an identity. The normalisers are the fast path's, so both paths agree.
 */
export function readLenient(
  source: SourceName,
  raw: Readonly<Record<string, unknown>>,
  zone: string,
): LenientOutcome {
  const fields: Record<string, FieldValue> = {};
  for (const [name, kind] of RECORD_FIELDS[source]) {
    const value = NORMALISERS[kind](raw[name], zone);
    if (value !== undefined && value !== INVALID) fields[name] = value;
  }
  const key = recordKey(source, fields);
  if (key === undefined) {
    const identity = IDENTITY_FIELD[source];
    return { reason: source === 'live_calls' ? `no ${identity} or id` : `no ${identity}` };
  }
  applyAliases(source, fields, raw, zone);
  const createdAt = fields.created_at;
  return {
    record:
      typeof createdAt === 'number' ? { key, createdAtMs: createdAt, fields } : { key, fields },
  };
}
