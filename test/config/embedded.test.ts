import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchConfig } from '../../bench/rules';
import {
  EMBEDDED_CONFIG_FILE,
  embedConfig,
  readEmbeddedConfig,
} from '../../shared/config/embedded';
import {
  ConfigError,
  ConfigNotSerialisableError,
  ConfigReadError,
} from '../../shared/config/errors';
import { loadConfigFile } from '../../shared/config/load';
import type { Config } from '../../shared/types/config';

/** Rules files that validate, from the shipped one to the bench's every operator and kind. */
const RULES_FILES = [
  'telealert.yaml',
  'test/e2e/fixtures/stack-rules.yaml',
  'test/infra/fixtures/live-calls-only.yaml',
];

function validated(): [string, Config][] {
  return [
    ...RULES_FILES.map((file): [string, Config] => [file, loadConfigFile(file)]),
    ['bench rules (shipped + 20)', benchConfig()],
  ];
}

/** Writes `text` as the embedded config of a fresh folder; its path. */
function shipped(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'telealert-embedded-')), EMBEDDED_CONFIG_FILE);
  writeFileSync(file, text);
  return file;
}

describe('Function: embedConfig', () => {
  it.each(validated())('gives back exactly the validated config of %s, frozen', (_, config) => {
    const { text, digest } = embedConfig(config);
    const read = readEmbeddedConfig(shipped(text), digest);
    expect(read).toStrictEqual(config);
    expect(Object.isFrozen(read)).toBe(true);
    expect(Object.isFrozen(read.rules[0]?.where)).toBe(true);
  });

  it.each([
    ['a Map', new Map([['a', 1]]), 'rules[0].extra is a Map'],
    ['a RegExp', /ringing/i, 'rules[0].extra is a RegExp'],
    ['a function', () => true, 'rules[0].extra is function'],
    ['undefined', undefined, 'rules[0].extra is undefined'],
    ['NaN', Number.NaN, 'rules[0].extra is NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'rules[0].extra is Infinity'],
    ['-0', -0, 'rules[0].extra is -0'],
    ['a hole', Object.assign(new Array<number>(3), { 0: 1, 2: 3 }), 'rules[0].extra[1] is a hole'],
  ])('refuses a config holding %s, naming where', (_, value, where) => {
    const config = loadConfigFile('telealert.yaml');
    const broken = {
      ...config,
      rules: [{ ...config.rules[0], extra: value }],
    } as unknown as Config;
    expect(() => embedConfig(broken)).toThrow(ConfigNotSerialisableError);
    expect(() => embedConfig(broken)).toThrow(where);
  });
});

describe('Function: readEmbeddedConfig', () => {
  const config = loadConfigFile('telealert.yaml');

  it('refuses a config edited after synth, one character being enough', () => {
    const { text, digest } = embedConfig(config);
    const edited = text.replace('"severity":"critical"', '"severity":"warning" ');
    expect(edited).not.toBe(text);
    expect(() => readEmbeddedConfig(shipped(edited), digest)).toThrow(ConfigError);
    expect(() => readEmbeddedConfig(shipped(edited), digest)).toThrow(
      /telealert\.config\.json: is not the validated config this function was built with/,
    );
  });

  it("refuses another build's config: the digest is of the exact text", () => {
    const other = embedConfig({ ...config, timezone: 'UTC' });
    expect(() => readEmbeddedConfig(shipped(other.text), embedConfig(config).digest)).toThrow(
      /redeploy/,
    );
  });

  it('says which file is missing', () => {
    const missing = join(tmpdir(), 'no-such-folder', EMBEDDED_CONFIG_FILE);
    expect(() => readEmbeddedConfig(missing, 'sha256:0')).toThrow(ConfigReadError);
    expect(() => readEmbeddedConfig(missing, 'sha256:0')).toThrow(`${missing} does not exist`);
  });
});
