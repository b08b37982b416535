import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** One thing the rehearsal started or made, and how to take it away. */
interface Resource {
  readonly name: string;
  /** The orderly way (close a server, wait for a process to exit). */
  readonly release: () => Promise<void>;
  /** What can still be done in a process that is exiting now: no awaiting. */
  readonly releaseNow: () => void;
}

/** A registered resource: released by its owner when done with it, or forgotten (already gone). */
export interface Held {
  release(): Promise<void>;
  forget(): void;
}

/** How long an orderly release may take before the rest is done the quick way. */
const RELEASE_TIMEOUT_MS = 5_000;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // A negative pid is the child's whole process group: a `cdk` CLI's own children, moto's
    // server threads. The children are started `detached`, so each leads a group of its own.
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * What the rehearsal holds on this machine (processes, servers, a temp folder), released in the
 * reverse order of their making. Each resource is registered the moment it exists, so a Ctrl-C
 * at any point finds everything to release; `releaseNow` is the synchronous last resort of a
 * process that exits at once (a second Ctrl-C).
 */
export class Teardown {
  private readonly resources: Resource[] = [];
  #stopping = false;

  /** True once `releaseAll` or `releaseAllNow` began: the work that made the resources is over. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * A resource with an orderly release and, where there is one, a synchronous one. A resource
   * added once stopping began (a process spawned by work that did not yet see the Ctrl-C) is
   * released at once.
   */
  add(name: string, release: () => Promise<void>, releaseNow: () => void = () => {}): Held {
    const resource = { name, release, releaseNow };
    const forget = () => {
      const index = this.resources.indexOf(resource);
      if (index >= 0) this.resources.splice(index, 1);
    };
    if (this.#stopping) releaseNow();
    else this.resources.push(resource);
    return {
      forget,
      release: async () => {
        forget();
        await release();
      },
    };
  }

  /** A child process run in a process group of its own: the group is stopped, then killed. */
  addProcess(name: string, child: ChildProcess): Held {
    return this.add(
      name,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        signalGroup(child, 'SIGTERM');
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      },
      () => signalGroup(child, 'SIGKILL'),
    );
  }

  /** A folder removed with everything in it. */
  addFolder(path: string): Held {
    const remove = () => rmSync(path, { recursive: true, force: true });
    return this.add(`folder ${path}`, async () => remove(), remove);
  }

  /** Releases everything, newest first; a release that fails or hangs does not stop the rest. */
  async releaseAll(): Promise<void> {
    this.#stopping = true;
    while (this.resources.length > 0) {
      const resource = this.resources.pop() as Resource;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), RELEASE_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([resource.release(), timedOut]);
        if (outcome === 'timeout') resource.releaseNow();
      } catch {
        resource.releaseNow();
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Releases everything at once, without waiting: for a process about to exit. */
  releaseAllNow(): void {
    this.#stopping = true;
    while (this.resources.length > 0) {
      const resource = this.resources.pop() as Resource;
      try {
        resource.releaseNow();
      } catch {
        // Best effort: the process is exiting.
      }
    }
  }
}
