import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { CdkCommandError } from './errors';
import { ACCOUNT, type MotoServer, REGION } from './moto';

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

function cdk(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      CDK,
      [command, ...args],
      { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error) reject(new CdkCommandError(command, output, { cause: error }));
        else resolvePromise(output);
      },
    );
  });
}

/**
 * `cdk synth -q` as a user runs it (cdk.json, offline: no AWS setting of the machine counts),
 * with the rules file from `-c config=`, into `outdir`.
 */
export function synth(configFile: string, outdir: string): Promise<string> {
  return cdk(
    'synth',
    ['-q', '-o', outdir, '-c', `config=${resolve(configFile)}`],
    cleanEnvironment(),
  );
}

/**
 * `cdk bootstrap` of moto's account and region, with the CLI's own bootstrap template. Given the
 * synthesized assembly, so the CLI does not synthesize the app again to find its environments.
 */
export function bootstrap(moto: MotoServer, assembly: string): Promise<string> {
  return cdk(
    'bootstrap',
    ['--app', assembly, `aws://${ACCOUNT}/${REGION}`],
    cleanEnvironment(moto.environment),
  );
}

/**
 * `cdk deploy` of a synthesized assembly. Direct, not through a change set (moto fails an update
 * when the CLI deletes its previous change set), and without the previous parameters (moto keeps
 * none the CLI could reuse).
 */
export function deploy(moto: MotoServer, assembly: string): Promise<string> {
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
  );
}

/** `cdk destroy` of the assembly's stack, without asking. */
export function destroy(moto: MotoServer, assembly: string): Promise<string> {
  return cdk(
    'destroy',
    ['--app', assembly, '--force', STACK_NAME],
    cleanEnvironment(moto.environment),
  );
}
