import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A running moto server on loopback and the environment the AWS SDK needs to reach it. */
export interface Moto {
  readonly endpoint: string;
  /** Sets AWS_ENDPOINT_URL, region and fake credentials in `process.env`. */
  applyEnv(): void;
  stop(): Promise<void>;
}

export const MOTO_MISSING =
  "moto_server is not installed: install moto: pip install 'moto[server]'";

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

async function waitUntilUp(endpoint: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      if (response.ok) return;
    } catch {
      // Not listening yet: poll again shortly.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`moto_server did not answer on ${endpoint}`);
}

/*
 * moto_server's own entry point serves requests on threads, and moto's DynamoDB does not
 * serialise a condition check with its write, so two racing conditional writes can both
 * succeed there (never on DynamoDB). The same server app, run on one thread, keeps the
 * concurrency tests honest.
 */
const SINGLE_THREADED_MOTO = `
import sys
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False)
`;

/**
 * Starts moto's server (what `moto_server -H 127.0.0.1 -p PORT` runs, on one thread) on a free
 * port and waits until it answers. Fails with how to install moto when it is missing: the suite is
 * never skipped.
 */
export async function startMoto(): Promise<Moto> {
  const python = process.env.MOTO_PYTHON ?? 'python3';
  if (spawnSync(python, ['-c', 'import moto.server'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(MOTO_MISSING);
  }
  const port = await freePort();
  const child = spawn(python, ['-c', SINGLE_THREADED_MOTO, '127.0.0.1', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(endpoint, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return {
    endpoint,
    applyEnv() {
      process.env.AWS_ENDPOINT_URL = endpoint;
      process.env.AWS_REGION = 'us-east-1';
      process.env.AWS_ACCESS_KEY_ID = 'testing';
      process.env.AWS_SECRET_ACCESS_KEY = 'testing';
      delete process.env.AWS_SESSION_TOKEN;
      delete process.env.AWS_PROFILE;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
