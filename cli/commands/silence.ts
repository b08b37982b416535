import { didYouMean } from '../../shared/config/hints';
import { AckError, SilenceEndedError, SilenceError } from '../../shared/notifier/errors';
import { acknowledge, addSilence, expireSilence } from '../../shared/notifier/people';
import {
  describeMatchers,
  makeSilence,
  SILENCE_RETENTION_MS,
  silenceActive,
} from '../../shared/notifier/silence';
import type { Silence } from '../../shared/notifier/types';
import { tryParseDuration } from '../../shared/time/duration';
import { formatInZone } from '../../shared/time/zone';
import type { Config } from '../../shared/types/config';
import { CliError, EXIT, UsageError } from '../lib/errors';
import { loadUserConfig } from '../lib/files';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';
import { actor, changeNotifier, invalid, nowOf, readMatchers, readTime } from '../lib/people';
import { peopleStores } from '../lib/where';

/** The alerts telealert raises itself: they neither repeat nor escalate. */
const BUILT_IN_RULES: readonly string[] = ['source_unavailable', 'too_many_alerts'];

function silenceState(silence: Silence, nowMs: number): 'active' | 'pending' | 'expired' {
  if (silenceActive(silence, nowMs)) return 'active';
  return silence.startsAt > nowMs ? 'pending' : 'expired';
}

/** Aligned columns, the last one left ragged. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

async function add(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  const matchers = readMatchers(options.match, config);
  const nowMs = nowOf(io);
  if ((options.for === undefined) === (options.until === undefined)) {
    throw new UsageError('say how long: --for DURATION (2h) or --until TIME, one of them');
  }
  let endsAt: number;
  if (options.for !== undefined) {
    const ms = tryParseDuration(options.for);
    if (ms === undefined || ms <= 0) {
      throw new UsageError(`--for "${options.for}": not a duration; write 30m, 2h, 1d`);
    }
    endsAt = nowMs + ms;
  } else endsAt = readTime(options.until ?? '', config.timezone, '--until');
  if (endsAt <= nowMs) throw new UsageError('--until is in the past: a silence must end later');
  const comment = options.comment?.trim() ?? '';
  if (comment === '') {
    throw new UsageError('say why with --comment TEXT (it is what others see in silence list)');
  }
  const by = actor(options, io);
  let silence: Silence;
  try {
    silence = makeSilence({ matchers, startsAt: nowMs, endsAt, comment, createdBy: by });
  } catch (error) {
    if (error instanceof SilenceError) throw invalid(error);
    throw error;
  }
  const { notifier } = await peopleStores(options, io, 'silence add');
  await changeNotifier(notifier, (state) => ({ state: addSilence(state, silence) }));
  io.stdout(`${silence.id}\n`);
  io.stderr(
    `telealert: silenced ${describeMatchers(silence)} until ${formatInZone(endsAt, config.timezone)}\n`,
  );
  return EXIT.ok;
}

async function list(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  const nowMs = nowOf(io);
  const { notifier } = await peopleStores(options, io, 'silence list');
  const stored = await notifier.loadNotifier();
  const silences = (stored.state?.silences ?? []).filter(
    (silence) => silence.endsAt > nowMs - SILENCE_RETENTION_MS,
  );
  if (options.json) {
    for (const silence of silences) {
      io.stdout(
        `${JSON.stringify({
          id: silence.id,
          matchers: silence.matchers,
          startsAt: new Date(silence.startsAt).toISOString(),
          endsAt: new Date(silence.endsAt).toISOString(),
          state: silenceState(silence, nowMs),
          createdBy: silence.createdBy,
          comment: silence.comment,
          silenced: silence.silenced ?? 0,
        })}\n`,
      );
    }
    return EXIT.ok;
  }
  if (silences.length === 0) {
    io.stderr('telealert: no silences\n');
    return EXIT.ok;
  }
  const zone = config.timezone;
  io.stdout(
    table([
      ['ID', 'MATCHERS', 'STATE', 'STARTS', 'ENDS', 'SILENCED', 'BY', 'COMMENT'],
      ...silences.map((silence) => [
        silence.id,
        describeMatchers(silence),
        silenceState(silence, nowMs),
        formatInZone(silence.startsAt, zone),
        formatInZone(silence.endsAt, zone),
        String(silence.silenced ?? 0),
        silence.createdBy,
        silence.comment,
      ]),
    ]),
  );
  return EXIT.ok;
}

async function expire(options: CliOptions, io: Io, id: string | undefined): Promise<number> {
  if (id === undefined) throw new UsageError('silence expire needs the silence ID (silence list)');
  const { config } = loadUserConfig(options.config, io);
  const nowMs = nowOf(io);
  const { notifier } = await peopleStores(options, io, 'silence expire');
  try {
    const { silence } = await changeNotifier(notifier, (state) => expireSilence(state, id, nowMs));
    io.stdout(`${silence.id}\n`);
    io.stderr(`telealert: expired silence ${silence.id} (${describeMatchers(silence)})\n`);
  } catch (error) {
    // Exit 2, not a silent success: the operator meant another silence, or it ended already.
    if (error instanceof SilenceEndedError) {
      throw new CliError(
        `silence ${error.silenceId} already ended at ${formatInZone(error.endedAtMs, config.timezone)}: nothing to expire (telealert silence list shows the active ones)`,
        EXIT.invalid,
        { cause: error },
      );
    }
    if (error instanceof SilenceError) throw invalid(error);
    throw error;
  }
  return EXIT.ok;
}

/**
 * `telealert silence add|list|expire` (contract section 6): silences in the notifier's state,
 * beside the poll state (`--state`); `poll --messages` and the demo's notifier apply them.
 */
export async function silenceCommand(
  options: CliOptions,
  io: Io,
  args: readonly string[],
): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'add' || action === 'list') {
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    return action === 'add' ? add(options, io) : list(options, io);
  }
  if (action === 'expire') {
    if (rest.length > 1) throw new UsageError(`unexpected argument "${rest[1]}"`);
    return expire(options, io, rest[0]);
  }
  throw new UsageError(
    action === undefined
      ? 'silence needs add, list or expire'
      : `unknown silence action "${action}": add, list or expire`,
  );
}

/** The rule of an alert key (`too-many-ringing{did=+918000000001}`: `too-many-ringing`). */
function ruleOfKey(key: string): string {
  const brace = key.indexOf('{');
  return brace < 0 ? key : key.slice(0, brace);
}

/**
 * Refuses, before anything is read or written, what acknowledging cannot act on: a rule the
 * rules file does not have, and one with neither `repeat` nor `escalate` (acknowledging stops
 * those and nothing else: such an alert is silenced instead).
 */
function checkAckable(config: Config, name: string, key: string | undefined): void {
  const what = key === undefined ? `--rule ${name}` : `alert ${key}`;
  const rule = config.rules.find((candidate) => candidate.name === name);
  if (rule === undefined && !BUILT_IN_RULES.includes(name)) {
    const names = config.rules.map((candidate) => candidate.name);
    const hint = didYouMean(name, names) || `; the rules are ${names.join(', ')}`;
    throw new CliError(`${what}: no such rule in the rules file${hint}`, EXIT.invalid);
  }
  if (rule === undefined || (rule.repeatMs === undefined && (rule.escalate ?? []).length === 0)) {
    throw new CliError(
      `${what}: nothing to acknowledge: rule ${name} neither repeats nor escalates, and acknowledging stops only those; silence it instead (telealert silence add --match rule=${name} --for 1h --comment ...)`,
      EXIT.invalid,
    );
  }
}

/**
 * `telealert ack KEY | --rule NAME [--by NAME]`: the followed firing alerts with this key, or of
 * this rule, are acknowledged: no repeats and no escalation until they resolve.
 */
export async function ackCommand(
  options: CliOptions,
  io: Io,
  args: readonly string[],
): Promise<number> {
  const [key, ...rest] = args;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if ((key === undefined) === (options.rule === undefined)) {
    throw new UsageError('ack needs an alert KEY or --rule NAME, one of them');
  }
  const { config } = loadUserConfig(options.config, io);
  checkAckable(config, key === undefined ? (options.rule ?? '') : ruleOfKey(key), key);
  const by = actor(options, io);
  const nowMs = nowOf(io);
  const { notifier } = await peopleStores(options, io, 'ack');
  const target = key === undefined ? { rule: options.rule ?? '' } : { key };
  try {
    const { keys } = await changeNotifier(notifier, (state) =>
      acknowledge(state, target, { by, at: nowMs, via: 'cli' }),
    );
    for (const acked of keys) io.stdout(`${acked}\n`);
    io.stderr(
      `telealert: acknowledged ${keys.length} alert${keys.length === 1 ? '' : 's'} as ${by}\n`,
    );
  } catch (error) {
    if (error instanceof AckError) throw invalid(error);
    throw error;
  }
  return EXIT.ok;
}
