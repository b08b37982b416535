import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { CdkCommandError } from './errors';
import { ACCOUNT, type MotoServer, REGION } from './moto';
import type { Teardown } from './teardown';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const CDK = join(REPO_ROOT, 'node_modules', '.bin', 'cdk');

/** The stack name `infra/app.ts` gives by default. */
export const STACK_NAME = 'Telealert';

/** The machine's environment without any AWS setting, plus the CLI's quiet switches. */
function cleanEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' };
  for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
  return { ...env, ...extra };
}

const MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * Runs the CDK CLI in a process group of its own: a Ctrl-C in the terminal reaches the rehearsal
 * alone, which stops the CLI through `teardown` (a CLI killed by the terminal's signal would
 * read as a failed deploy). Without `teardown` it is stopped with the calling process.
 */
function cdk(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  teardown?: Teardown,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(CDK, [command, ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: teardown !== undefined,
    });
    const release = teardown?.addProcess(`cdk ${command}`, child);
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT) output += chunk.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', (error) => {
      release?.forget();
      reject(new CdkCommandError(command, output, { cause: error }));
    });
    child.once('close', (code, signal) => {
      release?.forget();
      if (code === 0) resolvePromise(output);
      else {
        const cause = new Error(`exit ${code ?? signal}`);
        reject(new CdkCommandError(command, output, { cause }));
      }
    });
  });
}

/**
 * `cdk synth -q` as a user runs it (cdk.json, offline: no AWS setting of the machine counts),
 * with the rules file from `-c config=`, into `outdir`.
 */
export function synth(configFile: string, outdir: string, teardown?: Teardown): Promise<string> {
  return cdk(
    'synth',
    ['-q', '-o', outdir, '-c', `config=${resolve(configFile)}`],
    cleanEnvironment(),
    teardown,
  );
}

/**
 * `cdk bootstrap` of moto's account and region, with the CLI's own bootstrap template. Given the
 * synthesized assembly, so the CLI does not synthesize the app again to find its environments.
 */
export function bootstrap(
  moto: MotoServer,
  assembly: string,
  teardown?: Teardown,
): Promise<string> {
  return cdk(
    'bootstrap',
    ['--app', assembly, `aws://${ACCOUNT}/${REGION}`],
    cleanEnvironment(moto.environment),
    teardown,
  );
}

/**
 * `cdk deploy` of a synthesized assembly. Direct, not through a change set (moto fails an update
 * when the CLI deletes its previous change set), and without the previous parameters (moto keeps
 * none the CLI could reuse).
 */
export function deploy(moto: MotoServer, assembly: string, teardown?: Teardown): Promise<string> {
  return cdk(
    'deploy',
    [
      '--app',
      assembly,
      '--method=direct',
      '--no-previous-parameters',
      '--require-approval',
      'never',
      STACK_NAME,
    ],
    cleanEnvironment(moto.environment),
    teardown,
  );
}

/** `cdk destroy` of the assembly's stack, without asking. */
export function destroy(moto: MotoServer, assembly: string, teardown?: Teardown): Promise<string> {
  return cdk(
    'destroy',
    ['--app', assembly, '--force', STACK_NAME],
    cleanEnvironment(moto.environment),
    teardown,
  );
}
