import { type Decimal, parseDecimal } from '../money/decimal';
import type { FieldKind } from '../records/fields';
import { readDirection } from '../records/normalise';
import { canonicalPhone, isWrittenPhone } from '../records/phone';
import { tryParseDuration } from '../time/duration';

/** A condition's value, read by the kind of the field it applies to. */
export type ConditionValue =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'money'; readonly value: Decimal }
  /** Seconds. */
  | { readonly kind: 'duration'; readonly value: number }
  /** Lower-cased text, or a canonical phone. */
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'direction'; readonly value: 1 | 2 };

/**
 * Reads a condition value written in the rules file as the field's kind. A duration accepts
 * `90s`/`15m`/`HH:MM:SS` and a bare number of seconds. `time` fields compare as durations of
 * `age` do not make sense, so they are read as text. Returns `undefined` when unreadable;
 * the config validator turns that into an error naming the rule and field.
 */
export function readConditionValue(kind: FieldKind, text: string): ConditionValue | undefined {
  const value = text.trim();
  switch (kind) {
    case 'number': {
      if (value === '' || !Number.isFinite(Number(value))) return undefined;
      return { kind: 'number', value: Number(value) };
    }
    case 'money': {
      const decimal = parseDecimal(value);
      return decimal ? { kind: 'money', value: decimal } : undefined;
    }
    case 'duration': {
      const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : tryParseDuration(value);
      // A duration too long for a double is no duration: refused like any unreadable value.
      return ms === undefined || !Number.isFinite(ms)
        ? undefined
        : { kind: 'duration', value: ms / 1000 };
    }
    case 'direction': {
      const direction = readDirection(value);
      return direction ? { kind: 'direction', value: direction } : undefined;
    }
    case 'phone':
    case 'phones':
      // Digits among other text (`+91 abc`) are refused, not read as the number 91; a word
      // with no digit (`anonymous`, a withheld caller id) is kept and compared as sent.
      if (value === '' || (/\d/.test(value) && !isWrittenPhone(value))) return undefined;
      return { kind: 'text', value: canonicalPhone(value) };
    case 'text':
    case 'time':
      return { kind: 'text', value: value.toLowerCase() };
  }
}

/** The operators that make sense per kind: ordering needs an order. */
export function kindIsOrdered(kind: FieldKind): boolean {
  return kind === 'number' || kind === 'money' || kind === 'duration' || kind === 'text';
}
