import { createHash } from 'node:crypto';

import { TOO_MANY_ALERTS } from '../messages/limit';
import { SOURCE_UNAVAILABLE } from '../messages/words';
import { FIELDS, type FieldKind, IDENTITY_FIELD } from '../records/fields';
import { readDirection } from '../records/normalise';
import {
  canonicalPhone,
  canonicalPhones,
  isWrittenPhone,
  phoneListIdentity,
} from '../records/phone';
import type { Severity, SourceName } from '../types/config';
import { SilenceError } from './errors';
import type { Silence } from './types';

/** Ended silences stay listed this long (`telealert silence list`), then are forgotten. */
export const SILENCE_RETENTION_MS = 24 * 3_600_000;

/** What a silence is matched against: an alert's rule, severity, source and labels. */
export interface Matchable {
  readonly rule: string;
  readonly severity: Severity;
  readonly source: SourceName;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * A matcher's name: `rule`, `severity`, `source`, or a label; `labels.NAME` names the label
 * even where it shares a field's name (`too_many_alerts` carries the limited rule as its
 * `rule` label: `labels.rule=every-payment`).
 */
export const LABEL_PREFIX = 'labels.';

function fieldOf(alert: Matchable, name: string): string | undefined {
  if (name.startsWith(LABEL_PREFIX)) return alert.labels[name.slice(LABEL_PREFIX.length)];
  if (name === 'rule') return alert.rule;
  if (name === 'severity') return alert.severity;
  if (name === 'source') return alert.source;
  return alert.labels[name];
}

/** Alerts telealert raises itself: their labels are no record fields. */
const BUILT_IN_RULES: ReadonlySet<string> = new Set([SOURCE_UNAVAILABLE, TOO_MANY_ALERTS]);

/**
 * How the rules read the value a matcher names (contract 6.1 rule 5): a label as its record
 * field's kind, the record's identity as it is, anything else as text.
 */
function kindOf(alert: Matchable, name: string): FieldKind | 'identity' {
  const label = name.startsWith(LABEL_PREFIX)
    ? name.slice(LABEL_PREFIX.length)
    : ['rule', 'severity', 'source'].includes(name)
      ? undefined
      : name;
  if (label === undefined || BUILT_IN_RULES.has(alert.rule)) return 'text';
  if (label === IDENTITY_FIELD[alert.source]) return 'identity';
  return FIELDS[alert.source][label] ?? 'text';
}

const folded = (text: string) => text.trim().toLowerCase();

/**
 * One value as the rules would see it: text in any letter case (the engine keys an alert by
 * its text labels folded to lower case), one phone number however written (`did=08000000001`
 * matches `+918000000001`), a list of phones in any order, a direction as `1` or `inbound`;
 * the record's identity only as it is.
 */
function sameValue(kind: FieldKind | 'identity', actual: string, wanted: string): boolean {
  if (actual === wanted) return true;
  if (kind === 'identity') return actual.trim() === wanted.trim();
  if (kind === 'text' && folded(actual) === folded(wanted)) return true;
  if (kind === 'phones') {
    return (
      phoneListIdentity(canonicalPhones(actual)) === phoneListIdentity(canonicalPhones(wanted))
    );
  }
  if (kind === 'direction') {
    const read = readDirection(actual);
    return read !== undefined && read === readDirection(wanted);
  }
  return isWrittenPhone(actual) && isWrittenPhone(wanted)
    ? canonicalPhone(actual) === canonicalPhone(wanted)
    : false;
}

/** Every matcher holds for the alert (a silence has at least one). */
export function silenceMatches(silence: Silence, alert: Matchable): boolean {
  const matchers = Object.entries(silence.matchers);
  if (matchers.length === 0) return false;
  return matchers.every(([name, value]) => {
    const actual = fieldOf(alert, name);
    return actual !== undefined && sameValue(kindOf(alert, name), actual, value);
  });
}

/** In force at `nowMs`: started and not ended. */
export function silenceActive(silence: Silence, nowMs: number): boolean {
  return silence.startsAt <= nowMs && nowMs < silence.endsAt;
}

/** The first silence in force that matches the alert. */
export function silenceFor(
  silences: readonly Silence[],
  alert: Matchable,
  nowMs: number,
): Silence | undefined {
  return silences.find(
    (silence) => silenceActive(silence, nowMs) && silenceMatches(silence, alert),
  );
}

export interface SilenceInput {
  readonly matchers: Readonly<Record<string, string>>;
  readonly startsAt: number;
  readonly endsAt: number;
  readonly comment: string;
  readonly createdBy: string;
}

/**
 * A new silence, its id derived from what it says (the same silence added twice is one, and a
 * replay is reproducible).
 *
 * @throws SilenceError with no matcher (it would silence everything), an empty matcher name or
 *   value, or an end not after its start.
 */
export function makeSilence(input: SilenceInput): Silence {
  const matchers = Object.entries(input.matchers);
  if (matchers.length === 0) {
    throw new SilenceError(
      'a silence needs at least one matcher (rule=..., severity=..., source=... or a label): one with none would silence everything',
    );
  }
  for (const [name, value] of matchers) {
    if (name.trim() === '' || value.trim() === '') {
      throw new SilenceError(`matcher "${name}=${value}" needs a name and a value`);
    }
  }
  if (!(input.endsAt > input.startsAt)) {
    throw new SilenceError('a silence must end after it starts');
  }
  const sorted = Object.fromEntries(matchers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([sorted, input.startsAt, input.endsAt, input.comment, input.createdBy]),
  );
  return {
    id: hash.digest('hex').slice(0, 12),
    matchers: sorted,
    startsAt: input.startsAt,
    endsAt: input.endsAt,
    comment: input.comment,
    createdBy: input.createdBy,
  };
}

/** `rule=large-payment, did=+918000000001`. */
export function describeMatchers(silence: Silence): string {
  return Object.entries(silence.matchers)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
}
