import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileStateStore } from '../../shared/ports/file';
import { REPO_ROOT, SHIPPED_RULES, workDirs } from './fixtures';

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

describe('Bin: --by', () => {
  const tmp = workDirs();

  it('defaults to the operating system user in a shell with no USER (cron, containers, sudo)', async () => {
    const dir = tmp();
    const state = join(dir.path, 'state.json');
    const env: NodeJS.ProcessEnv = { ...process.env, TELEALERT_DEBUG: '' };
    for (const name of ['USER', 'USERNAME', 'LOGNAME']) delete env[name];
    const argv = ['silence', 'add', '--match', 'rule=large-payment', '--for', '1h'];
    const options = ['--comment', 'cron', '--state', state, '--config', SHIPPED_RULES];
    await run(process.execPath, [join(REPO_ROOT, 'cli/bin.js'), ...argv, ...options], {
      cwd: dir.path,
      env,
      timeout: 60_000,
    });
    const stored = await new FileStateStore(state).loadNotifier();
    expect(stored.state?.silences?.map((silence) => silence.createdBy)).toEqual([
      userInfo().username,
    ]);
  }, 90_000);
});

describe('Bin: a reader that goes away', () => {
  it('stops the demo quietly, exit 0 and no stack trace, when stdout is closed (| head)', async () => {
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'cli/bin.js'), 'demo', '--json', '--speed', '300', '--stop-after', '60s'],
      { cwd: REPO_ROOT, env: { ...process.env, TELEALERT_DEBUG: '' } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toMatch(/EPIPE/);
  }, 90_000);
});
