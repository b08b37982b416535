import type { SourceName } from '../types/config';
import { IncompatibleStateError } from './errors';
import { type SourceState, STATE_VERSION } from './types';

/** The state of a source nothing has been remembered about yet. */
export function emptyState(source: SourceName): SourceState {
  return { version: STATE_VERSION, source, consecutiveFailures: 0, alerts: {} };
}

/**
 * Checks a stored state before the engine trusts it. Decision: a state of another
 * `STATE_VERSION` or of another source is refused with `IncompatibleStateError` instead of
 * being silently discarded, since discarding would re-send every firing alert.
 */
export function checkState(previous: unknown, source: SourceName): SourceState {
  if (typeof previous !== 'object' || previous === null) {
    throw new IncompatibleStateError('not an object');
  }
  const candidate = previous as Partial<SourceState>;
  if (candidate.version !== STATE_VERSION) {
    throw new IncompatibleStateError(
      `version ${String(candidate.version)}, this build reads version ${STATE_VERSION}`,
    );
  }
  if (candidate.source !== source) {
    throw new IncompatibleStateError(`it belongs to ${String(candidate.source)}, not ${source}`);
  }
  if (
    typeof candidate.consecutiveFailures !== 'number' ||
    typeof candidate.alerts !== 'object' ||
    candidate.alerts === null
  ) {
    throw new IncompatibleStateError('missing consecutiveFailures or alerts');
  }
  return candidate as SourceState;
}

/**
 * The alert key: `rule{label1=v1,label2=v2}` with labels in the given order; `rule` alone without
 * labels. With several labels a value's `\` and `,` are escaped with `\`, so two groups never
 * share a key (`{a=x,b=y,b=z}` could be `a` = `x,b=y` or `b` = `y,b=z`); one label needs none.
 */
export function alertKey(rule: string, labels: Readonly<Record<string, string>>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return rule;
  const written = entries.length === 1 ? (value: string) => value : escapeLabelValue;
  return `${rule}{${entries.map(([name, value]) => `${name}=${written(value)}`).join(',')}}`;
}

function escapeLabelValue(value: string): string {
  return value.replace(/[\\,]/g, (character) => `\\${character}`);
}
