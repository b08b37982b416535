import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { bootstrap, deploy, destroy, STACK_NAME, synth } from '../../cli/deploy-local/cdk';
import { type DeployedHandler, loadDeployedHandler } from '../../cli/deploy-local/handlers';
import { type MotoServer, startMotoAlongside } from '../../cli/deploy-local/moto';
import { type DeployedStack, readDeployedStack } from '../../cli/deploy-local/stack';

/** A stack deployed on moto by the real CDK CLI, from a rules file the test writes. */
export interface Deployment {
  readonly moto: MotoServer;
  readonly directory: string;
  /** The stack as the services report it after the last deploy. */
  stack: DeployedStack;
  /** Each function's deployed code, loaded in this process, by the function's logical id. */
  handlers: Map<string, DeployedHandler>;
  /** Writes new rules, synthesizes them and deploys the update; reads the stack again. */
  update(rules: string): Promise<void>;
  /** `cdk destroy` of the stack. */
  destroy(): Promise<void>;
  /** Stops moto and removes the files. */
  close(): Promise<void>;
}

/**
 * Synthesizes `rules` (offline) while moto starts, then `cdk bootstrap` and `cdk deploy` as a
 * user runs them, puts the API token in its SSM parameter, reads the deployed stack and loads each
 * function's deployed code. Sets moto's environment in `process.env` for the test's own clients.
 */
export async function deployRules(
  rules: string,
  options: { readonly prefix: string; readonly tokenParameter: string; readonly token: string },
): Promise<Deployment> {
  const directory = await mkdtemp(join(tmpdir(), `telealert-${options.prefix}-`));
  let version = 0;
  const write = async (text: string) => {
    version += 1;
    const folder = join(directory, `v${version}`);
    const configFile = join(folder, 'telealert.yaml');
    await mkdir(folder, { recursive: true });
    await writeFile(configFile, text);
    const outdir = join(folder, 'cdk.out');
    return { configFile, outdir };
  };
  const first = await write(rules);
  // The synth needs no AWS at all: it runs before moto's settings enter the environment.
  const [moto] = await startMotoAlongside(synth(first.configFile, first.outdir));
  try {
    return await deployOn(moto, directory, first.outdir, write, options);
  } catch (error) {
    // A failed set-up leaves nothing listening: the test's afterAll has no deployment to close.
    await moto.stop();
    throw error;
  }
}

async function deployOn(
  moto: MotoServer,
  directory: string,
  firstOutdir: string,
  write: (text: string) => Promise<{ configFile: string; outdir: string }>,
  options: { readonly tokenParameter: string; readonly token: string },
): Promise<Deployment> {
  let outdir = firstOutdir;
  moto.applyEnv();
  delete process.env.TELEALERT_CONFIG_FILE;
  const ssm = new SSMClient({});
  try {
    await bootstrap(moto, outdir);
    await ssm.send(
      new PutParameterCommand({
        Name: options.tokenParameter,
        Value: options.token,
        Type: 'SecureString',
      }),
    );
  } finally {
    ssm.destroy();
  }
  const loadAll = async (stack: DeployedStack) => {
    const loaded = new Map<string, DeployedHandler>();
    for (const fn of stack.functions) {
      loaded.set(fn.logicalId, await loadDeployedHandler(moto, fn, join(directory, 'code')));
    }
    return loaded;
  };
  await deploy(moto, outdir);
  const stack = await readDeployedStack(STACK_NAME);
  const deployment: Deployment = {
    moto,
    directory,
    stack,
    handlers: await loadAll(stack),
    async update(text) {
      const next = await write(text);
      await synth(next.configFile, next.outdir);
      outdir = next.outdir;
      await deploy(moto, outdir);
      deployment.stack = await readDeployedStack(STACK_NAME);
      deployment.handlers = await loadAll(deployment.stack);
    },
    async destroy() {
      await destroy(moto, outdir);
    },
    async close() {
      await moto.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
  return deployment;
}
