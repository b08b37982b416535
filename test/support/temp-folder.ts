import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's own temporary folder to the tests (`test/support/temp-folder.test.ts`). */
export const RUN_TEMP_VARIABLE = 'TELEALERT_TEST_TEMP';

/**
 * Vitest's global setup: every temporary folder of the run (a test's `mkdtemp`, a `cdk synth`
 * it starts, a child process's own) goes into one folder made here, and the teardown removes
 * it, so `npm test` leaves nothing in the system's temporary folder whatever a test forgets.
 * TMPDIR is what `os.tmpdir()` and child processes read; the workers inherit it.
 */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'telealert-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  process.env[RUN_TEMP_VARIABLE] = folder;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env[RUN_TEMP_VARIABLE];
    rmSync(folder, { recursive: true, force: true });
  };
}
