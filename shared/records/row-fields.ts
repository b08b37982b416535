import { shortPlainDecimalValue } from '../money/decimal';
import type { SourceName } from '../types/config';
import type { FieldKind } from './fields';
import { type Normalised, normaliseMoney, readGateway } from './normalise';
import { NORMALISERS } from './reader';

/*
 * How the records batch and the generated scan read one field of a raw API row without
 * building the row's record. Each reading gives the record's own value, or `INVALID` where
 * only the record can tell (the field is then read from it); property-tested against the
 * records (`test/records/batch.test.ts`, `test/engine/observe.test.ts`).
 */

/**
 * Money as a scan compares it, without building its canonical text per row: a JSON number
 * whose text has no exponent as it is (its canonical text is its shortest text), a short plain
 * decimal text as its number (15 digits at most: the double tells it apart from every other
 * such decimal, DBL_DIG). `compareMoney` compares either exactly. Anything else as the record
 * holds it.
 */
function comparableMoney(value: unknown): Normalised {
  if (typeof value === 'number') {
    const magnitude = value < 0 ? -value : value;
    if (value === 0 || (magnitude >= 1e-6 && magnitude < 1e21)) return value;
  } else if (typeof value === 'string') {
    const number = shortPlainDecimalValue(value);
    if (number !== undefined) return number;
  }
  return normaliseMoney(value);
}

/**
 * How a scan reads one field of a raw row: `read(raw[name], zone)`, or `read(raw, zone)` for a
 * field read from several (`wholeRow`). The value is the record's (`INVALID` when the record
 * drops the field), except money, which may be a number that compares the same.
 */
export interface RowField {
  readonly name: string;
  readonly wholeRow: boolean;
  readonly read: (value: never, zone: string) => Normalised;
}

/** A field whose value is read from more than its own raw value (the gateway's alias). */
export function readsAlias(source: SourceName, name: string): boolean {
  return source === 'payments' && name === 'gateway';
}

export function rowField(source: SourceName, name: string, kind: FieldKind): RowField {
  if (readsAlias(source, name)) {
    return { name, wholeRow: true, read: readGateway };
  }
  return { name, wholeRow: false, read: kind === 'money' ? comparableMoney : NORMALISERS[kind] };
}

/** One field of one raw row, exactly as its record holds it; `INVALID` when the record drops it. */
export function valueReader(
  source: SourceName,
  name: string,
  kind: FieldKind,
  zone: string,
): (raw: Readonly<Record<string, unknown>>) => Normalised {
  if (readsAlias(source, name)) return readGateway;
  const normalise = NORMALISERS[kind];
  return (raw) => normalise(raw[name], zone);
}
