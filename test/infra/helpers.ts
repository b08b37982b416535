import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { TelealertAlertingProps } from '../../infra/alerting';
import { CHAT_ACTION_ENTRY } from '../../infra/chat';
import { FUNCTION_ENTRIES, NOTIFIER_ENTRY } from '../../infra/poller';
import { TelealertStack } from '../../infra/stack';
import { CONFIG_DIGEST_IDENTIFIER } from '../../shared/config/embedded';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const SHIPPED_CONFIG = join(REPO_ROOT, 'telealert.yaml');
export const FIXTURES = join(import.meta.dirname, 'fixtures');

/** What the stub credential module returns; found in a bundle when the alias applied. */
export const CREDENTIALS_STUB_MARK = 'env-credentials-stub';

/**
 * A throw-away project in the tmp dir with one-line handlers at the entry paths. The infra
 * tests prove the stack's shape and bundling settings, independent of the runtime's code
 * (the e2e suite runs the real bundles); the real entries are bundled by `cdk synth`.
 */
export function stubProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'telealert-infra-'));
  mkdirSync(join(root, 'functions'));
  for (const entry of [...Object.values(FUNCTION_ENTRIES), NOTIFIER_ENTRY, CHAT_ACTION_ENTRY]) {
    writeFileSync(
      join(root, 'functions', entry),
      "import { defaultProvider } from '@aws-sdk/credential-provider-node';\n" +
        // The validated config's digest, which the stack has the bundler put in.
        `export const handler = async () => [defaultProvider(), await import('node:http'), ${CONFIG_DIGEST_IDENTIFIER}];\n`,
    );
  }
  // The credential chain's replacement, which bundles with the SDK alias to (infra/poller.ts),
  // and node:http's, which every bundle aliases.
  mkdirSync(join(root, 'functions', 'adapters'));
  writeFileSync(
    join(root, 'functions', 'adapters', 'lambda-credentials.ts'),
    `export const defaultProvider = () => '${CREDENTIALS_STUB_MARK}';\n`,
  );
  copyFileSync(
    join(REPO_ROOT, 'functions', 'adapters', 'node-http.ts'),
    join(root, 'functions', 'adapters', 'node-http.ts'),
  );
  copyFileSync(join(REPO_ROOT, 'package-lock.json'), join(root, 'package-lock.json'));
  // CDK runs esbuild from the project root's node_modules; link only esbuild, so that staging
  // the project (when bundling is skipped) does not walk the whole of node_modules.
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  for (const dir of ['esbuild', '@esbuild']) {
    symlinkSync(join(REPO_ROOT, 'node_modules', dir), join(root, 'node_modules', dir), 'dir');
  }
  symlinkSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'esbuild'),
    join(root, 'node_modules', '.bin', 'esbuild'),
  );
  return root;
}

export interface Synth {
  readonly app: App;
  readonly stack: TelealertStack;
  readonly template: Template;
}

/**
 * Builds the stack into a tmp cloud assembly. With `bundle` the handlers are bundled by esbuild
 * (seconds: once per test file); without, CDK skips bundling and the shape alone is built.
 */
export function synthStack(
  configFile: string,
  props: Partial<TelealertAlertingProps> = {},
  options: { bundle?: boolean } = {},
): Synth {
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'telealert-cdk-out-')),
    // An empty list of stacks to bundle: CDK stages the sources without running esbuild.
    context: options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] },
  });
  const stack = new TelealertStack(app, 'Telealert', {
    alerting: { configFile, projectRoot: stubProject(), ...props },
  });
  return { app, stack, template: Template.fromStack(stack) };
}

/** The template with asset hashes (S3 keys, asset paths) replaced, for snapshots. */
export function stripAssetHashes(template: unknown): unknown {
  return JSON.parse(JSON.stringify(template).replace(/[0-9a-f]{64}/g, 'ASSET_HASH'));
}

/** Every IAM policy statement in the template. */
export function iamStatements(template: Template): Record<string, unknown>[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies).flatMap(
    (policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } })
        .Properties.PolicyDocument.Statement,
  );
}
