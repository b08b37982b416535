import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  MotoMissingError,
  MotoStartError,
  PINNED_MOTO,
  PythonMissingError,
  RehearsalError,
} from './errors';
import type { Teardown } from './teardown';

/** The launcher: moto's server with the CloudFormation models the stack needs (see its header). */
export const MOTO_LAUNCHER = join(import.meta.dirname, 'moto_server.py');

/** moto's default account and the region every rehearsal deploys to. */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

/** A running moto server on loopback. */
export interface MotoServer {
  /**
   * `http://localhost:PORT`: moto reads an S3 bucket from the path (as the CDK's asset
   * publishing sends it) only for `localhost` hosts.
   */
  readonly endpoint: string;
  /** What the AWS SDK and the CDK CLI need to reach it: endpoint, region, dummy credentials. */
  readonly environment: Readonly<Record<string, string>>;
  /** Puts `environment` in `process.env` and removes a profile or session token. */
  applyEnv(): void;
  stop(): Promise<void>;
}

export interface StartMotoOptions {
  /** @default process.env.MOTO_PYTHON ?? 'python3' */
  readonly python?: string;
  /** Where the server is registered the moment it is spawned, so a Ctrl-C finds it. */
  readonly teardown?: Teardown;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port assigned')),
      );
    });
  });
}

/** Fails, saying how to install what is missing, unless `python` has the pinned moto server. */
export function checkMoto(python: string): void {
  const probe = spawnSync(
    python,
    ['-c', 'import moto, moto.server, werkzeug; print(moto.__version__)'],
    { encoding: 'utf8' },
  );
  if (probe.error) throw new PythonMissingError(python, { cause: probe.error });
  if (probe.status !== 0)
    throw new MotoMissingError(`moto's server is not installed for ${python}`);
  const version = probe.stdout.trim();
  if (version !== PINNED_MOTO) {
    throw new MotoMissingError(`moto ${version} is installed; telealert needs moto ${PINNED_MOTO}`);
  }
}

async function waitUntilUp(endpoint: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new MotoStartError(`moto exited with ${child.exitCode}`);
    try {
      // Answers before any function exists (later it asks for Docker to list them).
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      if (response.ok) return;
    } catch {
      // Not listening yet: poll again shortly.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new MotoStartError(`moto did not answer on ${endpoint}`);
}

/**
 * Starts the launcher on a free loopback port and waits until it answers. The server runs in a
 * process group of its own, so a Ctrl-C in the terminal reaches only the caller, which can
 * still destroy the stack before it stops moto; it is killed when the caller exits.
 */
export async function startMoto(options: StartMotoOptions = {}): Promise<MotoServer> {
  const python = options.python ?? process.env.MOTO_PYTHON ?? 'python3';
  checkMoto(python);
  const port = await freePort();
  const child = spawn(python, [MOTO_LAUNCHER, '127.0.0.1', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  const killOnExit = () => killGroup('SIGKILL');
  process.once('exit', killOnExit);
  const unregister = options.teardown?.addProcess('moto', child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://localhost:${port}`;
  try {
    await waitUntilUp(endpoint, child);
  } catch (error) {
    killGroup('SIGKILL');
    process.off('exit', killOnExit);
    unregister?.forget();
    const reason = error instanceof RehearsalError ? error.message : String(error);
    throw new MotoStartError(`${reason}\n${stderr.trim()}`, { cause: error });
  }
  const environment = {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  };
  return {
    endpoint,
    environment,
    applyEnv() {
      Object.assign(process.env, environment);
      delete process.env.AWS_SESSION_TOKEN;
      delete process.env.AWS_PROFILE;
    },
    async stop() {
      process.off('exit', killOnExit);
      unregister?.forget();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      killGroup('SIGTERM');
      await exited;
    },
  };
}

/**
 * Starts moto while `work` (a synth) runs. When either fails, a moto that did start is stopped
 * before the failure is thrown: nothing is left listening.
 */
export async function startMotoAlongside<T>(
  work: Promise<T>,
  options: StartMotoOptions = {},
): Promise<[MotoServer, T]> {
  const [moto, result] = await Promise.allSettled([startMoto(options), work]);
  if (moto.status === 'fulfilled' && result.status === 'fulfilled') {
    return [moto.value, result.value];
  }
  if (moto.status === 'fulfilled') await moto.value.stop();
  throw moto.status === 'rejected' ? moto.reason : (result as PromiseRejectedResult).reason;
}
