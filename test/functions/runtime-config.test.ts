import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuntimeConfigError } from '../../functions/adapters/errors';
import { createRuntime, loadRuntimeConfig } from '../../functions/runtime';
import {
  CONFIG_DIGEST_IDENTIFIER,
  embedConfig,
  writeEmbeddedConfig,
} from '../../shared/config/embedded';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig, readConfigData } from '../../shared/config/load';

const RULES = `
api: { baseUrl: "http://127.0.0.1:9", tokenParameter: /unit/api-token }
channels: { oncall: { sms: ["+12025550100"] } }
rules:
  - { name: any-ringing, source: live_calls, where: { state: Ringing }, count: ">= 1", notify: [oncall] }
`;

/** A task root as synth leaves it: the validated config beside the handler; its digest. */
function taskRoot(rules = RULES): { root: string; digest: string } {
  const root = mkdtempSync(join(tmpdir(), 'telealert-task-root-'));
  const { text, digest } = embedConfig(parseConfig(rules, 'telealert.yaml'));
  writeFileSync(join(root, 'telealert.config.json'), text);
  return { root, digest };
}

describe('Function: loadRuntimeConfig', () => {
  it('reads the validated config beside the handler, as synth wrote it', () => {
    const { root, digest } = taskRoot();
    const config = loadRuntimeConfig({ LAMBDA_TASK_ROOT: root }, digest);
    expect(config).toStrictEqual(parseConfig(RULES, 'telealert.yaml'));
    expect(Object.isFrozen(config.rules)).toBe(true);
  });

  it('refuses a config its bundle was not built with', () => {
    const { root } = taskRoot();
    const other = taskRoot(RULES.replace('">= 1"', '">= 2"'));
    expect(() => loadRuntimeConfig({ LAMBDA_TASK_ROOT: root }, other.digest)).toThrow(ConfigError);
  });

  it('reads the validated config TELEALERT_CONFIG_FILE names, over the bundled config', () => {
    const { root, digest } = taskRoot();
    const file = join(root, 'override.json');
    const other = parseConfig(RULES.replace('">= 1"', '">= 3"'), 'telealert.yaml');
    writeEmbeddedConfig(file, other);
    const env = { LAMBDA_TASK_ROOT: root, TELEALERT_CONFIG_FILE: file };
    const config = loadRuntimeConfig(env, digest);
    expect(config).toStrictEqual(other);
    expect(config.rules[0]?.count).toEqual({ kind: 'compare', op: '>=', value: '3' });
    expect(Object.isFrozen(config.rules)).toBe(true);
  });

  it('refuses a rules file in TELEALERT_CONFIG_FILE, which only a validated config may be', () => {
    const { root, digest } = taskRoot();
    const file = join(root, 'override.json');
    writeFileSync(file, JSON.stringify(readConfigData(RULES, 'telealert.yaml')));
    const env = { LAMBDA_TASK_ROOT: root, TELEALERT_CONFIG_FILE: file };
    expect(() => loadRuntimeConfig(env, digest)).toThrow(ConfigError);
    expect(() => loadRuntimeConfig(env, digest)).toThrow(
      /^override\.json: is a rules file, not a validated config: validate it and write the result with writeEmbeddedConfig/,
    );
    for (const text of ['{"config": {"rules": "none"}}', '[]', 'not json']) {
      writeFileSync(file, text);
      expect(() => loadRuntimeConfig(env, digest)).toThrow(/^override\.json: is not/);
    }
  });

  it('says what to set when run from source without a rules file', () => {
    const { root } = taskRoot();
    expect(() => loadRuntimeConfig({ LAMBDA_TASK_ROOT: root }, undefined)).toThrow(
      RuntimeConfigError,
    );
    expect(() => loadRuntimeConfig({ LAMBDA_TASK_ROOT: root }, undefined)).toThrow(
      /set TELEALERT_CONFIG_FILE to a validated config/,
    );
  });

  it('reads the digest from the identifier the stack has the bundler define', () => {
    const source = readFileSync('functions/runtime.ts', 'utf8');
    expect(source).toContain(`declare const ${CONFIG_DIGEST_IDENTIFIER}:`);
  });
});

describe('Function: createRuntime', () => {
  it('sets the container up from the bundled config', () => {
    const { root, digest } = taskRoot();
    const runtime = createRuntime(
      {
        LAMBDA_TASK_ROOT: root,
        AWS_REGION: 'us-east-1',
        TELEALERT_TABLE: 'state',
        TELEALERT_TOPICS: JSON.stringify({ oncall: 'arn:aws:sns:us-east-1:1:oncall' }),
      },
      undefined,
      digest,
    );
    expect(runtime.config.api.tokenParameter).toBe('/unit/api-token');
    expect(runtime.tableName).toBe('state');
  });
});
