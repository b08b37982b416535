import type { FieldKind } from './fields';
import {
  INVALID,
  type Normalised,
  normaliseMoney,
  normaliseText,
  normaliseTime,
  normaliseValue,
} from './normalise';
import type { FieldValue } from './types';

/**
 * Reads `fields` of one raw record into normalised values: `undefined` when one is present but
 * unreadable (the caller then reads the record leniently, keeping the rest).
 */
export type FieldReader = (
  raw: Readonly<Record<string, unknown>>,
  zone: string,
) => Record<string, FieldValue> | undefined;

type Normaliser = (value: unknown, zone: string) => Normalised;

export const NORMALISERS: Readonly<Record<FieldKind, Normaliser>> = {
  text: normaliseText,
  money: normaliseMoney,
  time: normaliseTime,
  phone: (value, zone) => normaliseValue('phone', value, zone),
  phones: (value, zone) => normaliseValue('phones', value, zone),
  number: (value, zone) => normaliseValue('number', value, zone),
  duration: (value, zone) => normaliseValue('duration', value, zone),
  direction: (value, zone) => normaliseValue('direction', value, zone),
};

/** The loop every reader answers like: one keyed load and one normaliser call per field. */
export function loopReader(read: ReadonlyArray<readonly [string, FieldKind]>): FieldReader {
  return (raw, zone) => {
    const fields: Record<string, FieldValue> = {};
    for (const [name, kind] of read) {
      const value = NORMALISERS[kind](raw[name], zone);
      if (value === INVALID) return undefined;
      if (value !== undefined) fields[name] = value;
    }
    return fields;
  };
}

/**
 * A reader generated for one list of fields: a named load per field (its own inline cache,
 * where the loop's keyed load is megamorphic) and, when every field is present (the usual
 * record), one object literal, so such records share one hidden class and the rules read them
 * through monomorphic loads. Field names enter the source only as JSON literals. Same answers
 * as `loopReader` (property-tested).
 */
function generatedReader(read: ReadonlyArray<readonly [string, FieldKind]>): FieldReader {
  const names = read.map(([name]) => JSON.stringify(name));
  const body = [
    "'use strict';",
    'return function read(raw, zone) {',
    ...read.map(
      (_, index) =>
        `  const v${index} = N[${index}](raw[${names[index]}], zone); if (v${index} === INVALID) return undefined;`,
    ),
    `  if (${read.map((_, index) => `v${index} !== undefined`).join(' && ') || 'true'}) {`,
    `    return { ${read.map((_, index) => `${names[index]}: v${index}`).join(', ')} };`,
    '  }',
    '  const fields = {};',
    ...read.map(
      (_, index) => `  if (v${index} !== undefined) fields[${names[index]}] = v${index};`,
    ),
    '  return fields;',
    '};',
  ].join('\n');
  const factory = new Function('N', 'INVALID', body) as (
    normalisers: readonly Normaliser[],
    invalid: typeof INVALID,
  ) => FieldReader;
  return factory(
    read.map(([, kind]) => NORMALISERS[kind]),
    INVALID,
  );
}

const readers = new Map<string, FieldReader>();
/** Distinct field lists are few (one per source and rules file); a bound all the same. */
const MAX_READERS = 64;

/**
 * The reader of one list of fields, generated once per list; the loop where the runtime
 * forbids code generation (`--disallow-code-generation-from-strings`).
 */
export function fieldReader(read: ReadonlyArray<readonly [string, FieldKind]>): FieldReader {
  const id = read.map(([name, kind]) => `${name}:${kind}`).join(',');
  let reader = readers.get(id);
  if (reader === undefined) {
    try {
      reader = generatedReader(read);
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
      reader = loopReader(read);
    }
    if (readers.size >= MAX_READERS) readers.clear();
    readers.set(id, reader);
  }
  return reader;
}
