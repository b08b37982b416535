import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileStateStore } from '../../shared/ports/file';
import { REPO_ROOT, workDirs } from './fixtures';
import { writerEvent } from './processes/writer-events';

const run = promisify(execFile);
const WRITER = join(REPO_ROOT, 'test/cli/processes/shared-state-writer.ts');

const RULES = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { email: [oncall@example.com] }
rules:
  - name: ringing
    source: live_calls
    where: { state: Ringing }
    notify: [oncall]
`;

/** Writes per process: enough that, without the lock, two writes read one revision. */
const WRITES = 60;

describe('Local state shared by processes: poll --messages and silence add at once', () => {
  const tmp = workDirs();

  it('loses no change: every silence added and every event the poller handed over is in the file', async () => {
    const dir = tmp({ 'telealert.yaml': RULES });
    const state = join(dir.path, '.telealert', 'state.json');
    const go = join(dir.path, 'go');
    const writer = (role: string) =>
      run(
        process.execPath,
        ['--import', 'tsx', WRITER, role, state, join(dir.path, 'telealert.yaml'), go, `${WRITES}`],
        { cwd: REPO_ROOT, env: { ...process.env, TELEALERT_DEBUG: '1' }, timeout: 120_000 },
      );
    const both = Promise.all([writer('poll'), writer('silence')]);
    // Both processes are waiting for it: they start writing together.
    writeFileSync(go, '');
    await both;

    const stored = await new FileStateStore(state).loadNotifier();
    const comments = (stored.state?.silences ?? []).map((silence) => silence.comment).sort();
    const expected = Array.from({ length: WRITES }, (_, index) => `silence ${index}`).sort();
    expect(comments).toEqual(expected);
    const taken = Array.from({ length: WRITES }, (_, index) => writerEvent(index).id);
    expect(taken.filter((id) => !Object.hasOwn(stored.consumed, id))).toEqual([]);
    // Each write's revision counted once: no two writers committed the same one.
    expect(stored.revision).toBeGreaterThanOrEqual(2 * WRITES);
  }, 180_000);
});
