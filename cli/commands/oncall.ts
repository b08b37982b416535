import { didYouMean } from '../../shared/config/hints';
import { addOverride, removeOverride } from '../../shared/notifier/overrides';
import { handoffInZone } from '../../shared/oncall/describe';
import { OverrideError } from '../../shared/oncall/errors';
import { keptOverrides, makeOverride } from '../../shared/oncall/overrides';
import type { Override } from '../../shared/oncall/types';
import { nextHandoffs, onCallAt } from '../../shared/oncall/who';
import type { Config, RotationConfig } from '../../shared/types/config';
import { EXIT, UsageError } from '../lib/errors';
import { loadUserConfig } from '../lib/files';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';
import { actor, changeNotifier, invalid, nowOf, readTime } from '../lib/people';
import { peopleStores } from '../lib/where';
import { table } from './silence';

/** Handoffs `telealert oncall` lists after the current shift. */
const NEXT_HANDOFFS = 3;

function rotationsOf(config: Config): readonly RotationConfig[] {
  const rotations = Object.values(config.rotations ?? {});
  if (rotations.length === 0) {
    throw new UsageError(
      'the rules file has no rotations: add people and rotations (docs/oncall.md)',
    );
  }
  return rotations;
}

/** The rotation `--rotation` names (every rotation when absent and `all`). */
function chosen(config: Config, name: string | undefined): readonly RotationConfig[] {
  const rotations = rotationsOf(config);
  if (name === undefined) return rotations;
  const found = config.rotations?.[name];
  if (found === undefined) {
    const names = rotations.map((rotation) => rotation.name);
    const hint = didYouMean(name, names) || `; one of ${names.join(', ')}`;
    throw new UsageError(`--rotation ${name}: no such rotation${hint}`);
  }
  return [found];
}

/** The channels a rotation pages. */
function channelsOf(config: Config, rotation: string): string[] {
  return Object.values(config.channels)
    .filter((channel) => channel.rotation === rotation)
    .map((channel) => channel.name);
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** `telealert oncall [--rotation R] [--at TIME] [--json]`: who now (or at TIME), and next. */
async function show(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  const rotations = chosen(config, options.rotation);
  const zone = config.timezone;
  const atMs = options.at === undefined ? nowOf(io) : readTime(options.at, zone, '--at');
  const { notifier } = await peopleStores(options, io, 'oncall');
  const overrides = (await notifier.loadNotifier()).state?.overrides ?? [];
  for (const rotation of rotations) {
    const now = onCallAt(rotation, overrides, atMs, zone);
    const next = nextHandoffs(rotation, overrides, atMs, zone, NEXT_HANDOFFS);
    if (options.json) {
      io.stdout(
        `${JSON.stringify({
          rotation: rotation.name,
          at: iso(atMs),
          oncall: now.who,
          since: iso(now.since),
          until: iso(now.until),
          override: now.override?.id ?? null,
          channels: channelsOf(config, rotation.name),
          next: next.map((handoff) => ({
            at: iso(handoff.at),
            oncall: handoff.to,
            override: handoff.override?.id ?? null,
          })),
        })}\n`,
      );
      continue;
    }
    const person = config.people?.[now.who];
    const reach = [person?.sms, person?.email].filter((item) => item !== undefined).join(', ');
    const covering = now.override === undefined ? '' : ` (override ${now.override.id})`;
    const until =
      now.until === undefined ? 'with nobody after' : `until ${handoffInZone(now.until, zone)}`;
    io.stdout(
      `${rotation.name}: ${now.who}${reach === '' ? '' : ` (${reach})`} on call ${until}${covering}\n`,
    );
    for (const handoff of next) {
      const { override } = handoff;
      const by =
        override === undefined
          ? ''
          : override.who === handoff.to && override.from === handoff.at
            ? `  override ${override.id}`
            : `  (override ${override.id} ends)`;
      io.stdout(`  ${handoffInZone(handoff.at, zone)}  ${handoff.to}${by}\n`);
    }
  }
  return EXIT.ok;
}

async function add(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  if (options.rotation === undefined) throw new UsageError('oncall override needs --rotation NAME');
  const [rotation] = chosen(config, options.rotation) as [RotationConfig];
  const who = options.who?.trim();
  if (who === undefined || who === '') throw new UsageError('oncall override needs --who NAME');
  const people = Object.keys(config.people ?? {});
  if (!people.includes(who)) {
    const hint = didYouMean(who, people) || `; people are ${people.join(', ')}`;
    throw new UsageError(`--who ${who}: no such person in the rules file${hint}`);
  }
  if (options.until === undefined) throw new UsageError('oncall override needs --until TIME');
  const nowMs = nowOf(io);
  const zone = config.timezone;
  const from = options.from === undefined ? nowMs : readTime(options.from, zone, '--from');
  const until = readTime(options.until, zone, '--until');
  if (until <= nowMs) throw new UsageError('--until is in the past: an override must end later');
  const by = actor(options, io);
  let override: Override;
  try {
    override = makeOverride({
      rotation: rotation.name,
      who,
      from,
      until,
      createdBy: by,
      createdAt: nowMs,
    });
  } catch (error) {
    if (error instanceof OverrideError) throw invalid(error);
    throw error;
  }
  const { notifier } = await peopleStores(options, io, 'oncall override');
  await changeNotifier(notifier, (state) => ({ state: addOverride(state, override, nowMs) }));
  io.stdout(`${override.id}\n`);
  io.stderr(
    `telealert: ${who} on call for ${rotation.name} from ${handoffInZone(from, zone)} until ${handoffInZone(until, zone)}\n`,
  );
  return EXIT.ok;
}

function overrideState(override: Override, nowMs: number): 'active' | 'pending' | 'ended' {
  if (override.from <= nowMs && nowMs < override.until) return 'active';
  return override.from > nowMs ? 'pending' : 'ended';
}

async function list(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  if (options.rotation !== undefined) chosen(config, options.rotation);
  const nowMs = nowOf(io);
  const { notifier } = await peopleStores(options, io, 'oncall override list');
  const overrides = keptOverrides(
    (await notifier.loadNotifier()).state?.overrides ?? [],
    nowMs,
  ).filter((override) => options.rotation === undefined || override.rotation === options.rotation);
  if (options.json) {
    for (const override of overrides) {
      io.stdout(
        `${JSON.stringify({
          id: override.id,
          rotation: override.rotation,
          who: override.who,
          from: iso(override.from),
          until: iso(override.until),
          state: overrideState(override, nowMs),
          createdBy: override.createdBy,
          createdAt: iso(override.createdAt),
        })}\n`,
      );
    }
    return EXIT.ok;
  }
  if (overrides.length === 0) {
    io.stderr('telealert: no overrides\n');
    return EXIT.ok;
  }
  const zone = config.timezone;
  io.stdout(
    table([
      ['ID', 'ROTATION', 'WHO', 'STATE', 'FROM', 'UNTIL', 'BY'],
      ...overrides.map((override) => [
        override.id,
        override.rotation,
        override.who,
        overrideState(override, nowMs),
        handoffInZone(override.from, zone),
        handoffInZone(override.until, zone),
        override.createdBy,
      ]),
    ]),
  );
  return EXIT.ok;
}

async function remove(options: CliOptions, io: Io, id: string | undefined): Promise<number> {
  if (id === undefined)
    throw new UsageError('oncall override remove needs the override ID (override list)');
  loadUserConfig(options.config, io);
  const { notifier } = await peopleStores(options, io, 'oncall override remove');
  try {
    const { override } = await changeNotifier(notifier, (state) => removeOverride(state, id));
    io.stdout(`${override.id}\n`);
  } catch (error) {
    if (error instanceof OverrideError) throw invalid(error);
    throw error;
  }
  return EXIT.ok;
}

/**
 * `telealert oncall [--rotation R] [--at TIME] [--json]` and `telealert oncall override
 * [list | remove ID]` (contract section 8): who is on call and the next handoffs, and the
 * overrides in the notifier's state (local, or the deployed stack's with `--stack`).
 */
export async function oncallCommand(
  options: CliOptions,
  io: Io,
  args: readonly string[],
): Promise<number> {
  const [sub, action, ...rest] = args;
  if (sub === undefined) return show(options, io);
  if (sub !== 'override') {
    throw new UsageError(
      `unknown oncall action "${sub}": oncall, or oncall override [list|remove ID]`,
    );
  }
  if (action === undefined) return add(options, io);
  if (action === 'list') {
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    return list(options, io);
  }
  if (action === 'remove') {
    if (rest.length > 1) throw new UsageError(`unexpected argument "${rest[1]}"`);
    return remove(options, io, rest[0]);
  }
  throw new UsageError(`unknown override action "${action}": list or remove ID (or none, to add)`);
}
