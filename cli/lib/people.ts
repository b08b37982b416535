import { didYouMean } from '../../shared/config/hints';
import { LABEL_PREFIX } from '../../shared/notifier/silence';
import { parseApiTimestamp, parseOffsetTimestamp } from '../../shared/time/zone';
import type { Config } from '../../shared/types/config';
import { SEVERITIES, SOURCES } from '../../shared/types/config';
import { CliError, EXIT, UsageError } from './errors';
import type { Io } from './io';
import type { CliOptions } from './options';

// Where people's changes are applied: shared with the chat buttons' function.
export { changeNotifier } from '../../shared/runner/change-notifier';

/** The clock of a command: the test's, or the machine's. */
export function nowOf(io: Io): number {
  return io.now?.() ?? Date.now();
}

/**
 * Who did it: `--by`, else the operating system's user (it knows the user where a cron job,
 * a container or sudo leaves no USER), else USER, USERNAME or LOGNAME.
 */
export function actor(options: CliOptions, io: Io): string {
  const by =
    options.by?.trim() ||
    io.userName?.()?.trim() ||
    io.env.USER?.trim() ||
    io.env.USERNAME?.trim() ||
    io.env.LOGNAME?.trim();
  if (by === undefined || by === '') {
    throw new UsageError(
      'say who you are with --by NAME (neither the operating system nor USER names a user)',
    );
  }
  return by;
}

/** `name=value` pairs of `--match`, checked against what the rules file can produce. */
export function readMatchers(
  matches: readonly string[] | undefined,
  config: Config,
): Record<string, string> {
  if (matches === undefined || matches.length === 0) {
    throw new UsageError(
      'a silence needs at least one --match NAME=VALUE (rule, severity, source or a label): one with none would silence everything',
    );
  }
  const matchers: Record<string, string> = {};
  for (const match of matches) {
    const at = match.indexOf('=');
    const name = at < 0 ? '' : match.slice(0, at).trim();
    const value = at < 0 ? '' : match.slice(at + 1).trim();
    if (name === '' || value === '') {
      throw new UsageError(`--match "${match}": write NAME=VALUE, e.g. rule=large-payment`);
    }
    if (Object.hasOwn(matchers, name)) {
      throw new UsageError(`--match ${name} given twice: a silence's matchers must all hold`);
    }
    if (name === LABEL_PREFIX) {
      throw new UsageError(
        `--match "${match}": write labels.NAME=VALUE, e.g. labels.rule=large-payment`,
      );
    }
    const known: Record<string, readonly string[]> = {
      rule: [...config.rules.map((rule) => rule.name), 'source_unavailable', 'too_many_alerts'],
      // The rule a `too_many_alerts` stands for.
      [`${LABEL_PREFIX}rule`]: config.rules.map((rule) => rule.name),
      severity: SEVERITIES,
      source: SOURCES,
    };
    const allowed = known[name];
    if (allowed !== undefined && !allowed.includes(value)) {
      const hint = didYouMean(value, allowed) || `; one of ${allowed.join(', ')}`;
      throw new UsageError(
        `--match ${name}=${value}: no such ${name.startsWith(LABEL_PREFIX) ? name.slice(LABEL_PREFIX.length) : name}${hint}`,
      );
    }
    matchers[name] = value;
  }
  return matchers;
}

/** An ISO-8601 time with an offset, or wall-clock time in the config zone (`2026-11-21 14:00`). */
export function readTime(text: string, zone: string, option: string): number {
  const trimmed = text.trim();
  const withSeconds = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}$/.test(trimmed)
    ? `${trimmed}:00`
    : trimmed;
  const offset = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(withSeconds);
  const ms = offset
    ? parseOffsetTimestamp(withSeconds)
    : parseApiTimestamp(withSeconds.replace('T', ' '), zone);
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new UsageError(
      `${option} "${text}": not a time; write 2026-11-21 14:00 (${zone}) or an ISO-8601 time with an offset`,
    );
  }
  return ms;
}

/** A notifier error the user caused (no matcher, unknown id, nothing to acknowledge). */
export function invalid(error: Error): CliError {
  return new CliError(error.message, EXIT.invalid, { cause: error });
}
