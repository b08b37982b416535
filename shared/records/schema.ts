import type { SourceName } from '../config/types';
import * as z from '../schema/zod';
import { assertTimeZone } from '../time/zone';
import { DERIVED_FIELDS, FIELDS, type FieldKind, IDENTITY_FIELD } from './fields';
import { INVALID, normaliseValue, readIdentity } from './normalise';
import type { FieldValue } from './types';

/** What a record schema makes of one raw record (the parser adds `source` and `raw`). */
export interface NormalisedRecord {
  readonly key: string;
  readonly createdAtMs?: number;
  readonly fields: Readonly<Record<string, FieldValue>>;
}

const scalar = z.union([z.string(), z.number(), z.null()]);
const INPUTS: Readonly<Record<FieldKind, z.ZodMiniType>> = {
  text: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  phone: scalar,
  phones: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()])), z.null()]),
  number: scalar,
  money: scalar,
  duration: scalar,
  time: scalar,
  direction: scalar,
};

/** One field: the input shapes the API is known to send, normalised by kind. */
export function fieldSchema(kind: FieldKind, zone: string) {
  return z.pipe(
    INPUTS[kind],
    z.transform((value, ctx): FieldValue | undefined => {
      const result = normaliseValue(kind, value, zone);
      if (result === INVALID) {
        ctx.issues.push({ code: 'custom', message: `not readable as ${kind}`, input: value });
        return z.NEVER;
      }
      return result;
    }),
  );
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
 * Copies the documented alias: the docs name the gateway field both ways. The schema's way
 * with normalised fields; `readGateway` reads a raw row the same way.
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

function buildSchema(source: SourceName, zone: string) {
  const shape: Record<string, z.ZodMiniType<FieldValue | undefined>> = {};
  for (const [name, kind] of RECORD_FIELDS[source])
    shape[name] = z.optional(fieldSchema(kind, zone));
  return z.pipe(
    z.looseObject(shape),
    z.transform((parsed, ctx): NormalisedRecord => {
      const raw = parsed as Record<string, unknown>;
      const key = recordKey(source, raw);
      if (key === undefined) {
        const identity = IDENTITY_FIELD[source];
        ctx.issues.push({
          code: 'custom',
          message: source === 'live_calls' ? `no ${identity} or id` : `no ${identity}`,
          input: parsed,
        });
        return z.NEVER;
      }
      const fields: Record<string, FieldValue> = {};
      for (const [name] of RECORD_FIELDS[source]) {
        const value = raw[name] as FieldValue | undefined;
        if (value !== undefined) fields[name] = value;
      }
      applyAliases(source, fields, raw, zone);
      const createdAt = fields.created_at;
      return typeof createdAt === 'number'
        ? { key, createdAtMs: createdAt, fields }
        : { key, fields };
    }),
  );
}

export type RecordSchema = ReturnType<typeof buildSchema>;
const compiled = new Map<string, RecordSchema>();

/**
 * The zod schema of one source's records in `zone`, compiled once and cached. It accepts the
 * API's known drift (numbers as strings and back, other letter case, extra or missing fields,
 * phones in any notation, a destination list) and fails only on a value it cannot read, or a
 * record that is not an object or has no identity. Throws `TimeZoneError` for an unknown zone.
 */
export function recordSchema(source: SourceName, zone: string): RecordSchema {
  const cacheKey = `${source}|${zone}`;
  let schema = compiled.get(cacheKey);
  if (!schema) {
    assertTimeZone(zone);
    schema = buildSchema(source, zone);
    compiled.set(cacheKey, schema);
  }
  return schema;
}
