import { type FieldKind, IDENTITY_FIELD } from '../../shared/records/fields';
import { INVALID, normaliseValue } from '../../shared/records/normalise';
import {
  applyAliases,
  type NormalisedRecord,
  RECORD_FIELDS,
  recordKey,
} from '../../shared/records/schema';
import type { FieldValue } from '../../shared/records/types';
import * as z from '../../shared/schema/zod';
import type { SourceName } from '../../shared/types/config';

/*
 * The records' schema in zod, as the parser's slow path was written before it was read field
 * by field without zod (`shared/records/schema.ts` `readLenient`, so the functions carry no
 * zod): the independent statement of which inputs each field kind accepts that the parser is
 * property-tested against (test/records/parse.test.ts).
 */

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
function fieldSchema(kind: FieldKind, zone: string) {
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

/**
 * The zod schema of one source's records in `zone`. It accepts the API's known drift (numbers
 * as strings and back, other letter case, extra or missing fields, phones in any notation, a
 * destination list) and fails only on a value it cannot read, or a record that is not an
 * object or has no identity.
 */
export function recordSchema(source: SourceName, zone: string) {
  return buildSchema(source, zone);
}

/**
 * What the parser's slow path made of one object with the schema: a record, or why it was
 * skipped. Two passes at most: the second without the fields the first could not read.
 */
export function zodReading(
  source: SourceName,
  raw: Record<string, unknown>,
  zone: string,
): { readonly record: NormalisedRecord } | { readonly reason: string } {
  const schema = recordSchema(source, zone);
  let input = raw;
  for (let pass = 0; pass < 2; pass += 1) {
    const result = schema.safeParse(input);
    if (result.success) return { record: result.data };
    const fieldIssues = result.error.issues.filter((issue) => issue.path.length > 0);
    if (fieldIssues.length < result.error.issues.length || pass === 1) {
      const root = result.error.issues.find((issue) => issue.path.length === 0);
      return { reason: root?.message ?? result.error.issues[0]?.message ?? 'unreadable' };
    }
    input = { ...input };
    for (const issue of fieldIssues) delete input[String(issue.path[0])];
  }
  return { reason: 'unreadable' };
}
