import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures';

const run = promisify(execFile);

describe('Bin: cli/bin.js', () => {
  it('runs `validate` on the shipped rules file as a real process and exits 0', async () => {
    const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'cli/bin.js'), 'validate'], {
      cwd: REPO_ROOT,
      env: { ...process.env, TELEALERT_DEBUG: '' },
      timeout: 60_000,
    });
    expect(stdout).toBe('telealert.yaml: ok (4 rules, 2 channels, timezone Asia/Kolkata)\n');
  }, 90_000);
});
