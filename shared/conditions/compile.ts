import { formatMoney, parseDecimal } from '../money/decimal';
import { FIELDS, type FieldKind } from '../records/fields';
import { readDirection } from '../records/normalise';
import type { ApiRecord, FieldValue } from '../records/types';
import { formatDuration } from '../time/duration';
import { formatInZone, parseApiTimestamp } from '../time/zone';
import type { Condition, SourceName } from '../types/config';
import { compileValueTest } from './compare';
import { generateWhere, type PlannedCondition, plannedOp } from './generate';
import { type ConditionValue, readConditionValue } from './values';

/** A compiled `where`: does this record match at this evaluation time? */
export type RecordPredicate = (record: ApiRecord, nowMs: number) => boolean;

/** A compiled `count`. */
export type CountPredicate = (count: number) => boolean;

/** The kind of a field a rule names; a name the catalogue does not know is read as text. */
export function fieldKind(source: SourceName, field: string): FieldKind {
  return FIELDS[source][field] ?? 'text';
}

/**
 * A record's value for one field, derived fields included: `age` is `nowMs - createdAtMs` in
 * seconds (undefined without a `created_at`). `undefined` when the record lacks the field.
 */
export function fieldValue(
  record: ApiRecord,
  field: string,
  nowMs: number,
): FieldValue | undefined {
  if (field === 'age') {
    return record.createdAtMs === undefined ? undefined : (nowMs - record.createdAtMs) / 1000;
  }
  return record.fields[field];
}

/**
 * Reads a condition value for a field. `time` fields (`created_at`) take a timestamp in the
 * API's formats, read in the configured zone, compared as epoch ms.
 */
function readValue(kind: FieldKind, text: string, zone: string): ConditionValue | undefined {
  if (kind === 'time') {
    const ms = parseApiTimestamp(text.trim(), zone) ?? Date.parse(text.trim());
    return Number.isFinite(ms) ? { kind: 'number', value: ms } : undefined;
  }
  return readConditionValue(kind, text);
}

/**
 * Compiles one field's condition (contract section 2):
 * - a scalar means equality and a list means any of its values;
 * - `"OP VALUE"` compares with `>`, `<`, `>=`, `<=`, `<>`, VALUE read by the field's kind:
 *   numbers and durations numerically, money exactly (`100000.10 >= 100000.1` holds), text
 *   case-insensitively (lower-cased, also for ordering), phones by canonical number;
 *   `direction` accepts `1`/`2`/`inbound`/`outbound`;
 * - a phone list (`destination`) equals a value when any of its numbers does, and `<>` holds
 *   only when none does;
 * - a record that lacks the field, or holds empty text there (a pending payment's
 *   `payment_id`), or a record without `created_at` for `age`, never satisfies a condition
 *   on it, not even `<>`: absence is "unknown", not "different";
 * - a value that cannot be read as the field's kind (the config validator refuses those)
 *   never holds, so a bad value can never make a rule fire.
 */
export function compileCondition(
  source: SourceName,
  field: string,
  condition: Condition,
  zone: string,
): RecordPredicate {
  const kind = fieldKind(source, field);
  const texts = condition.kind === 'equals' ? condition.values : [condition.value];
  const values = texts.map((text) => readValue(kind, text, zone));
  const readable = values.filter((value): value is ConditionValue => value !== undefined);
  if (readable.length === 0) return () => false;
  const op = condition.kind === 'equals' ? 'any' : condition.op;
  const matches = compileValueTest(kind, op, readable);
  if (field === 'age') {
    return (record, nowMs) =>
      record.createdAtMs !== undefined && matches((nowMs - record.createdAtMs) / 1000);
  }
  return (record) => {
    const actual = record.fields[field];
    return actual !== undefined && actual !== '' && matches(actual);
  };
}

/**
 * Relative cost of reading a field of a raw row and testing it, by kind: text is trimmed,
 * numbers parsed, durations split, phones canonicalised, timestamps read in a time zone.
 */
const COST: Readonly<Record<FieldKind, number>> = {
  text: 0,
  direction: 0,
  number: 1,
  money: 1,
  duration: 2,
  phone: 3,
  phones: 3,
  time: 4,
};

/** What testing `field` costs: `age` reads the timestamp `created_at`. */
function cost(field: string, kind: FieldKind): number {
  return field === 'age' ? COST.time : COST[kind];
}

/**
 * A `where`'s conditions, cheapest test first: every condition must hold and none has side
 * effects, so the order only decides how soon a record that fails is let go.
 */
function cheapestFirst(source: SourceName, where: Readonly<Record<string, Condition>>) {
  return Object.entries(where)
    .map(([field, condition]) => ({ field, condition, kind: fieldKind(source, field) }))
    .sort((a, b) => cost(a.field, a.kind) - cost(b.field, b.kind));
}

/**
 * The conditions of a `where`, cheapest test first, values read; `undefined` if one can never
 * hold.
 */
export function planWhere(
  source: SourceName,
  where: Readonly<Record<string, Condition>>,
  zone: string,
): PlannedCondition[] | undefined {
  const planned: PlannedCondition[] = [];
  for (const { field, condition, kind } of cheapestFirst(source, where)) {
    const texts = condition.kind === 'equals' ? condition.values : [condition.value];
    const values = texts
      .map((text) => readValue(kind, text, zone))
      .filter((value): value is ConditionValue => value !== undefined);
    // A value that cannot be read never holds (the validator refuses those anyway).
    if (values.length === 0) return undefined;
    planned.push({ field, kind, op: plannedOp(condition), values });
  }
  return planned;
}

/**
 * Compiles a rule's `where`: every condition must hold. An empty `where` matches every record
 * of the source. Generated code (`generate.ts`) where the runtime allows it, else closures.
 */
export function compileWhere(
  source: SourceName,
  where: Readonly<Record<string, Condition>>,
  zone: string,
): RecordPredicate {
  const planned = planWhere(source, where, zone);
  if (planned === undefined) return () => false;
  try {
    return generateWhere(planned);
  } catch (error) {
    // Node started with --disallow-code-generation-from-strings: the closures answer the same.
    if (error instanceof EvalError) return compileWhereClosures(source, where, zone);
    throw error;
  }
}

/**
 * `compileWhere` without code generation: one closure per condition. The reference the
 * generated predicates are property-tested against.
 */
export function compileWhereClosures(
  source: SourceName,
  where: Readonly<Record<string, Condition>>,
  zone: string,
): RecordPredicate {
  const predicates = cheapestFirst(source, where).map(({ field, condition }) =>
    compileCondition(source, field, condition, zone),
  );
  const [first, second, ...rest] = predicates;
  if (first === undefined) return () => true;
  if (second === undefined) return first;
  return (record, nowMs) =>
    first(record, nowMs) &&
    second(record, nowMs) &&
    rest.every((predicate) => predicate(record, nowMs));
}

/** Compiles an aggregate rule's `count` condition (values read as numbers). */
export function compileCount(condition: Condition): CountPredicate {
  const texts = condition.kind === 'equals' ? condition.values : [condition.value];
  const values = texts
    .map((text) => readConditionValue('number', text))
    .filter((value): value is ConditionValue => value !== undefined);
  if (values.length === 0) return () => false;
  const test = compileValueTest(
    'number',
    condition.kind === 'equals' ? 'any' : condition.op,
    values,
  );
  return (count) => test(count);
}

/** The condition as a person reads it: `> 5`, `Ringing`, `any of Ringing, Queued`. */
export function conditionText(condition: Condition): string {
  if (condition.kind === 'compare') return `${condition.op} ${condition.value}`;
  return condition.values.length === 1
    ? (condition.values[0] ?? '')
    : `any of ${condition.values.join(', ')}`;
}

/** Canonical money text (`formatDecimal`'s output): no exponent, no trailing fraction zeros. */
const CANONICAL_MONEY = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

/** `formatMoney` of canonical text, without the BigInt round trip (a message per match). */
function twoDecimals(canonical: string): string {
  const dot = canonical.indexOf('.');
  if (dot === -1) return `${canonical}.00`;
  return canonical.length - dot === 2 ? `${canonical}0` : canonical;
}

function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/**
 * One field of a record as display text for messages: money with two decimals (`150000.00`),
 * times in the configured zone, `call_time` as `HH:MM:SS`, `age` as `2h 5m`, direction as
 * `inbound`/`outbound`, phone lists comma-separated. Empty text when the record lacks it.
 */
export function fieldDisplay(
  record: ApiRecord,
  field: string,
  nowMs: number,
  zone: string,
): string {
  const value = fieldValue(record, field, nowMs);
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.join(', ');
  const scalar = value as string | number;
  switch (fieldKind(record.source, field)) {
    case 'money': {
      if (typeof scalar === 'string' && CANONICAL_MONEY.test(scalar)) return twoDecimals(scalar);
      const decimal = parseDecimal(scalar);
      return decimal ? formatMoney(decimal) : String(scalar);
    }
    case 'time':
      return typeof scalar === 'number' ? formatInZone(scalar, zone) : String(scalar);
    case 'duration':
      if (typeof scalar !== 'number') return String(scalar);
      return field === 'age' ? formatDuration(scalar * 1000) : clock(scalar);
    case 'direction': {
      const direction = readDirection(scalar);
      return direction === 1 ? 'inbound' : direction === 2 ? 'outbound' : String(scalar);
    }
    default:
      return String(scalar);
  }
}
