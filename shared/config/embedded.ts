import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { useZoneTable, type ZoneTable, zoneTable } from '../time/zone';
import type { Config } from '../types/config';
import { ConfigError, ConfigNotSerialisableError, ConfigReadError } from './errors';
import { deepFreeze } from './freeze';

/*
 * The validated rules, as `cdk synth` ships them beside each handler: the output of
 * `validateConfig` written as JSON, read back at cold start without the schemas (no zod run,
 * about 13 ms and the rules' schemas built at load). One source of truth: only synth writes it,
 * from the rules file it has just validated, and the bundle built in the same synth carries the
 * digest of exactly that text, so a config from another build or edited after it is refused.
 * No YAML, no zod: the functions import this.
 *
 * Beside the config, the configured zone's offsets for the years around synth (`zoneTable`),
 * computed there with Intl: the function reads its timestamps and writes its messages from
 * them without loading ICU (about 11 ms of a cold start's CPU); Intl answers outside them.
 */

/** The validated rules beside each handler (the rules file as written sits beside it too). */
export const EMBEDDED_CONFIG_FILE = 'telealert.config.json';

/**
 * The identifier the bundler replaces with the embedded text's digest (`infra/poller.ts`
 * defines it, `functions/runtime.ts` reads it).
 */
export const CONFIG_DIGEST_IDENTIFIER = '__TELEALERT_CONFIG_DIGEST__';

/** The years of zone offsets shipped: from two before synth's year to ten after it. */
export const ZONE_TABLE_YEARS = { before: 2, after: 10 } as const;

/** The shipped file's JSON: the config, and the zone table when synth made one. */
interface EmbeddedData {
  readonly config: Config;
  readonly zone?: ZoneTable;
}

/** A validated config as shipped: the file's text and its digest. */
export interface EmbeddedConfig {
  readonly text: string;
  /** `sha256:` and the text's SHA-256 in hex. */
  readonly digest: string;
}

function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/**
 * Refuses anything JSON would change on the way back: a `Map`, a `RegExp`, a function, a class
 * instance, `undefined`, a non-finite number or -0, a sparse array.
 *
 * @throws ConfigNotSerialisableError naming the first such value's path.
 */
function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Object.is(value, -0)) {
      const shown = Object.is(value, -0) ? '-0' : String(value);
      throw new ConfigNotSerialisableError(path, `is ${shown}, which JSON does not keep`);
    }
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) throw new ConfigNotSerialisableError(`${path}[${i}]`, 'is a hole');
      assertPlainJson(value[i], `${path}[${i}]`);
    }
    return;
  }
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = (value as object).constructor?.name ?? 'an object with a prototype';
      throw new ConfigNotSerialisableError(path, `is a ${kind}`);
    }
    for (const [key, child] of Object.entries(value)) {
      assertPlainJson(child, path === '' ? key : `${path}.${key}`);
    }
    return;
  }
  throw new ConfigNotSerialisableError(path, `is ${typeof value}`);
}

/**
 * A validated config as the stack ships it (at synth), with its zone's offsets from January
 * of `year` - 2 to the end of `year` + 10 when `year` (synth's) is given.
 *
 * @throws ConfigNotSerialisableError when the config holds a value JSON would not give back.
 */
export function embedConfig(config: Config, year?: number): EmbeddedConfig {
  assertPlainJson(config, '');
  const data: EmbeddedData =
    year === undefined
      ? { config }
      : {
          config,
          zone: zoneTable(
            config.timezone,
            Date.UTC(year - ZONE_TABLE_YEARS.before, 0, 1),
            Date.UTC(year + ZONE_TABLE_YEARS.after + 1, 0, 1),
          ),
        };
  const text = `${JSON.stringify(data)}\n`;
  return { text, digest: digestOf(text) };
}

/**
 * Writes `config` (one `validateConfig` returned) to `path` as the stack ships it
 * (`embedConfig`): what `TELEALERT_CONFIG_FILE` names for tests, the bench and a handler run
 * from source, so the functions read one format and never carry the validator.
 *
 * @throws ConfigNotSerialisableError when the config holds a value JSON would not give back.
 */
export function writeEmbeddedConfig(path: string, config: Config, year?: number): EmbeddedConfig {
  const embedded = embedConfig(config, year);
  writeFileSync(path, embedded.text);
  return embedded;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? `${path} does not exist` : `${path}: ${String(code ?? error)}`;
    throw new ConfigReadError(basename(path), reason, { cause: error });
  }
}

/** The config of embedded data, frozen; its zone table answers the zone's offsets from now on. */
function useEmbedded(data: EmbeddedData): Config {
  if (data.zone !== undefined) useZoneTable(data.zone);
  return deepFreeze(data.config);
}

/**
 * Reads the validated config beside a handler, checking it is the one its bundle was built
 * with. Frozen, as `validateConfig` returns it. The zone table shipped with it answers the
 * configured zone's offsets from then on (`useZoneTable`: the answers Intl gives, without it).
 *
 * @throws ConfigReadError when the file cannot be read; ConfigError when its digest is not
 *   `digest` (another build's config, or edited after synth).
 */
export function readEmbeddedConfig(path: string, digest: string): Config {
  const text = readText(path);
  if (digestOf(text) !== digest) {
    throw new ConfigError(basename(path), [
      {
        path: '',
        message:
          'is not the validated config this function was built with (another build, or edited ' +
          'after synth): change telealert.yaml and redeploy, which validates it and ships both again',
      },
    ]);
  }
  return useEmbedded(JSON.parse(text) as EmbeddedData);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a validated config named by `TELEALERT_CONFIG_FILE`: `writeEmbeddedConfig`'s file, or
 * the `telealert.config.json` synth wrote beside a handler. Nothing binds it to a build, so it
 * is taken as written; a rules file (not validated) is refused, saying so.
 *
 * @throws ConfigReadError when the file cannot be read; ConfigError when it is not JSON or not
 *   a validated config.
 */
export function readConfigOverride(path: string): Config {
  const text = readText(path);
  const refuse = (message: string, cause?: unknown) =>
    new ConfigError(basename(path), [{ path: '', message }], cause === undefined ? {} : { cause });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw refuse(`is not JSON: ${(error as Error).message}`, error);
  }
  const config = isObject(data) ? data.config : undefined;
  if (!isObject(config) || !Array.isArray(config.rules) || typeof config.timezone !== 'string') {
    throw refuse(
      isObject(data) && 'rules' in data
        ? 'is a rules file, not a validated config: validate it and write the result with writeEmbeddedConfig (shared/config/embedded.ts), or name the telealert.config.json synth writes beside each handler'
        : 'is not a validated config (the JSON writeEmbeddedConfig writes, as synth ships it beside each handler)',
    );
  }
  return useEmbedded(data as unknown as EmbeddedData);
}
