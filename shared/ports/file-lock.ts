import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { StateStoreError } from './errors';

/**
 * How long a lock may go without its holder touching it before another process takes it over
 * (the holder touches it every half of this while it holds it): a crashed `telealert poll`
 * blocks the others this long at most.
 */
export const LOCK_STALE_MS = 10_000;

/**
 * How a writer waits for its turn: a write of the state file takes milliseconds, so short
 * randomised waits, growing, for about 30 s in all before giving up.
 */
const RETRIES = { retries: 150, factor: 1.1, minTimeout: 5, maxTimeout: 250, randomize: true };

/** The lock beside `path` (`state.json.lock`, a directory while held). */
export function lockPathOf(path: string): string {
  return `${path}.lock`;
}

/**
 * Runs `task` holding the cross-process lock of the file at `path` (proper-lockfile: an atomic
 * `mkdir` of `path.lock`, refreshed while held, taken over when stale), so the processes that
 * share one local state file (`poll`, the demo, `silence`, `ack`, `oncall`) read, check and
 * write it in turn: a revision checked under the lock is still the file's when it is written.
 * The file itself need not exist yet; its folder is created.
 *
 * @throws StateStoreError when the lock cannot be had (another process holds it for longer than
 *   any write takes), or is lost while held; `task`'s own errors as they are.
 */
export async function withFileLock<T>(path: string, task: () => Promise<T>): Promise<T> {
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    await mkdir(dirname(path), { recursive: true });
    release = await lockfile.lock(path, {
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: RETRIES,
      // The default throws from a timer, killing the process; the write below refuses instead.
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StateStoreError(
      code === 'ELOCKED'
        ? `the state file ${path} stays locked by another telealert process; if none is running, delete ${lockPathOf(path)}`
        : `cannot lock the state file ${path} (${String(code ?? error)})`,
      { cause: error },
    );
  }
  try {
    const result = await task();
    if (compromised !== undefined) {
      throw new StateStoreError(
        `lost the lock of the state file ${path} while writing it (${compromised.message}); run the command again`,
        { cause: compromised },
      );
    }
    return result;
  } finally {
    // A lock already taken over as stale is not ours to remove.
    if (compromised === undefined) await release().catch(() => undefined);
  }
}
