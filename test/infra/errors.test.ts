import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InvalidPropError } from '../../infra/errors';
import { SourcePoller, type SourcePollerProps } from '../../infra/poller';
import { ConfigError } from '../../shared/config/errors';
import { loadConfigFile } from '../../shared/config/load';
import { FIXTURES, REPO_ROOT, SHIPPED_CONFIG, synthStack } from './helpers';

const BAD = join(FIXTURES, 'bad.yaml');

/** The text `telealert validate` prints for a rules file (the loader's own message). */
function validateText(file: string): string {
  try {
    loadConfigFile(file);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
  }
  throw new Error(`${file} unexpectedly valid`);
}

describe('Class: TelealertAlerting (synth-time errors)', () => {
  it('throws the ConfigError of a bad rules file, with every issue', () => {
    expect(() => synthStack(BAD)).toThrow(ConfigError);
    expect(() => synthStack(BAD)).toThrow(validateText(BAD));
    expect(validateText(BAD).split('\n').length).toBeGreaterThan(1);
  });

  it('throws the ConfigError of a missing rules file', () => {
    const missing = join(FIXTURES, 'no-such-file.yaml');
    expect(() => synthStack(missing)).toThrow(validateText(missing));
  });

  it('names memorySize when it is out of range', () => {
    expect(() => synthStack(SHIPPED_CONFIG, { memorySize: 64 })).toThrow(
      expect.objectContaining({ name: 'InvalidPropError', prop: 'memorySize' }),
    );
  });

  it('names tokenKeyArn when it is not a KMS key ARN', () => {
    expect(() => synthStack(SHIPPED_CONFIG, { tokenKeyArn: 'alias/aws/ssm' })).toThrow(
      InvalidPropError,
    );
    expect(() => synthStack(SHIPPED_CONFIG, { tokenKeyArn: 'alias/aws/ssm' })).toThrow(
      /tokenKeyArn/,
    );
  });

  it('refuses samples for a poller other than live calls, which alone makes a sample queue', () => {
    const stack = new Stack(new App(), 'Samples');
    const props = { source: 'payments', everyMs: 300_000, samples: 2 } as SourcePollerProps;
    expect(() => new SourcePoller(stack, 'Poller', props)).toThrow(
      expect.objectContaining({ name: 'InvalidPropError', prop: 'sources.payments.samples' }),
    );
  });

  it('names sources.<source>.every when EventBridge cannot schedule it', () => {
    expect(() => synthStack(join(FIXTURES, 'every-90s.yaml'))).toThrow(
      /sources\.live_calls\.every/,
    );
  });
});

describe('Function: buildApp (infra/app.ts)', () => {
  it('fails the synth with exactly the validate text of a bad rules file', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'infra', 'app.ts')],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          CDK_CONTEXT_JSON: JSON.stringify({ config: BAD }),
          CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'telealert-app-')),
        },
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${validateText(BAD)}\n`);
  }, 60_000);
});
