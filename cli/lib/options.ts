import type { parseArgs } from 'node:util';
import { tryParseDuration } from '../../shared/time/duration';
import { SCENARIO_NAMES, type ScenarioName } from '../../simulator/scenarios';
import { UsageError } from './errors';

/** Every option of every command, as `parseArgs` reads them (`cli/main.ts`). */
export const OPTIONS = {
  config: { type: 'string' },
  timeline: { type: 'string' },
  'base-url': { type: 'string' },
  once: { type: 'boolean' },
  state: { type: 'string' },
  pretty: { type: 'boolean' },
  messages: { type: 'boolean' },
  events: { type: 'boolean' },
  json: { type: 'boolean' },
  port: { type: 'string' },
  scenario: { type: 'string' },
  seed: { type: 'string' },
  token: { type: 'string' },
  fault: { type: 'string', multiple: true },
  speed: { type: 'string' },
  'stop-after': { type: 'string' },
  match: { type: 'string', multiple: true },
  for: { type: 'string' },
  until: { type: 'string' },
  comment: { type: 'string' },
  by: { type: 'string' },
  rule: { type: 'string' },
  stack: { type: 'string' },
  rotation: { type: 'string' },
  who: { type: 'string' },
  from: { type: 'string' },
  at: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The options of one invocation, parsed. */
export type CliOptions = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** A decimal number as people write it: no hex (`0x50`), exponent or `Infinity`. */
const DECIMAL = /^\s*\d+(?:\.\d+)?\s*$/;
const WHOLE = /^\s*\d+\s*$/;

/**
 * Reads a numeric option within bounds, written in decimal (`whole`: without a fraction, for
 * ports and seeds); absent: the default.
 */
export function readNumber(
  text: string | undefined,
  name: string,
  fallback: number,
  bounds: { min: number; max: number; whole?: boolean },
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  const shape = bounds.whole === true ? WHOLE : DECIMAL;
  if (!shape.test(text) || value < bounds.min || value > bounds.max) {
    const kind = bounds.whole === true ? 'a whole number' : 'a number';
    throw new UsageError(`--${name} must be ${kind} from ${bounds.min} to ${bounds.max}`);
  }
  return value;
}

/** Reads a duration option (`30s`, `2m`); absent: undefined. */
export function readDurationOption(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = tryParseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(`--${name} must be a duration such as 30s or 2m`);
  }
  return ms;
}

/** Reads --scenario against the simulator's registry. */
export function readScenario(text: string | undefined, fallback: ScenarioName): ScenarioName {
  if (text === undefined) return fallback;
  const found = SCENARIO_NAMES.find((name) => name === text);
  if (!found) {
    throw new UsageError(`unknown scenario "${text}": one of ${SCENARIO_NAMES.join(', ')}`);
  }
  return found;
}
