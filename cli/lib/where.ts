import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { FileStateStore } from '../../shared/ports/file';
import type { NotifierStore } from '../../shared/ports/notifier';
import type { StateStore } from '../../shared/ports/types';
import { CliError, EXIT, UsageError } from './errors';
import type { Io } from './io';
import type { CliOptions } from './options';

/** Where `telealert poll` and the demo keep their state, and the notifier's beside it. */
export const DEFAULT_STATE_FILE = '.telealert/state.json';

/** The environment variable naming the stack people's commands act on by default. */
export const STACK_VARIABLE = 'TELEALERT_STACK';

/** The stack name `infra/app.ts` gives when its context names none: the one the docs show. */
export const EXAMPLE_STACK = 'Telealert';

/** What named the place a command acts on. */
export type NamedBy = '--stack' | typeof STACK_VARIABLE | 'cdk.json' | '--state' | 'default';

/** The place a people command acts on, before anything is opened. */
export type Place =
  | { readonly kind: 'stack'; readonly stack: string; readonly namedBy: NamedBy }
  | { readonly kind: 'local'; readonly path: string; readonly namedBy: NamedBy };

/** The stores of the place a people command acts on, and the line that says which it is. */
export interface PeopleStores {
  readonly notifier: NotifierStore;
  readonly state: StateStore;
  /** `local state .telealert/state.json` or `stack Telealert (table ..., region ...)`. */
  readonly where: string;
}

/** `context.stackName` of the cdk.json in `cwd` (the project's: `cdk deploy` names it so). */
function cdkStackName(cwd: string): string | undefined {
  const file = resolve(cwd, 'cdk.json');
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { context?: { stackName?: unknown } };
    const name = parsed.context?.stackName;
    return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
  } catch {
    // Not JSON or unreadable: cdk itself would fail there; this names no stack.
    return undefined;
  }
}

/**
 * Decides where a people command (`silence`, `ack`, `alerts`, `oncall`) acts, as amtool never
 * acts on a silent default: `--stack NAME`; else `--state FILE` (local state, created by a
 * write); else the stack `TELEALERT_STACK` names; else the one the working directory's
 * cdk.json names (`context.stackName`); else the local state `.telealert/state.json` if `poll`
 * or the demo left one. With none of these the command is refused, showing both forms, rather
 * than starting a local state nobody polls.
 *
 * @param command the command as typed (`silence add`), for the refusal's examples.
 * @throws UsageError for `--stack` with `--state`; CliError (exit 2) when nothing names a place.
 */
export function placeOf(options: CliOptions, io: Io, command: string): Place {
  if (options.stack !== undefined && options.state !== undefined) {
    throw new UsageError('give --stack or --state, not both');
  }
  if (options.stack !== undefined) {
    if (options.stack.trim() === '') throw new UsageError('--stack needs the stack name');
    return { kind: 'stack', stack: options.stack.trim(), namedBy: '--stack' };
  }
  if (options.state !== undefined) {
    return { kind: 'local', path: resolve(io.cwd, options.state), namedBy: '--state' };
  }
  const fromEnvironment = io.env[STACK_VARIABLE]?.trim();
  if (fromEnvironment) return { kind: 'stack', stack: fromEnvironment, namedBy: STACK_VARIABLE };
  const fromCdk = cdkStackName(io.cwd);
  if (fromCdk !== undefined) return { kind: 'stack', stack: fromCdk, namedBy: 'cdk.json' };
  const local = resolve(io.cwd, DEFAULT_STATE_FILE);
  if (existsSync(local)) return { kind: 'local', path: local, namedBy: 'default' };
  throw new CliError(
    [
      `no local state here (${DEFAULT_STATE_FILE}) and no stack named, so ${command} has nothing to act on.`,
      `  the deployed stack:  telealert ${command} ... --stack ${EXAMPLE_STACK}   (or export ${STACK_VARIABLE}=${EXAMPLE_STACK})`,
      `  a local state file:  telealert ${command} ... --state ${DEFAULT_STATE_FILE}`,
    ].join('\n'),
    EXIT.invalid,
  );
}

/** A path as the user would type it from `cwd`: relative inside it, absolute outside. */
export function shownPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

/** Why this place and not another, when no option named it. */
function namedByNote(namedBy: NamedBy): string {
  if (namedBy === STACK_VARIABLE) return `, from ${STACK_VARIABLE}`;
  if (namedBy === 'cdk.json') return ', from cdk.json';
  return '';
}

/**
 * Opens the stores of the place a people command acts on (`placeOf`) and says which it is as
 * the command's first line, on stderr (stdout stays the command's output: ids, JSON Lines):
 * `local state .telealert/state.json` or `stack Telealert (table ..., region ...)`.
 */
export async function peopleStores(
  options: CliOptions,
  io: Io,
  command: string,
): Promise<PeopleStores> {
  const place = placeOf(options, io, command);
  let stores: PeopleStores;
  if (place.kind === 'stack') {
    // Loaded only here: a local command never loads the AWS SDK.
    const { deployedStores } = await import('./deployed');
    const deployed = await deployedStores(place.stack, io.stderr);
    stores = { ...deployed, where: `${deployed.where}${namedByNote(place.namedBy)}` };
  } else {
    const store = new FileStateStore(place.path);
    const shown = shownPath(place.path, io.cwd);
    const empty = existsSync(place.path) ? '' : ' (no file yet)';
    stores = { notifier: store, state: store, where: `local state ${shown}${empty}` };
  }
  io.stderr(`${stores.where}\n`);
  return stores;
}
