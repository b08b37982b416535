import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './fixtures';

/** Runs `node cli/node-version.js VERSION` as npm's pretest does, judging a pretended version. */
function check(version: string): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'cli/node-version.js'), version], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('Script: cli/node-version.js', () => {
  it('exits 1 on Node 20 and says which Node is needed and how to install it', () => {
    const { status, stderr, stdout } = check('v20.11.1');
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^telealert needs Node\.js 22\.12 or newer \(24 recommended, as on Lambda nodejs24\.x\); this is Node\.js v20\.11\.1\.\n/,
    );
    expect(stderr).toContain('nvm install 24');
    expect(stderr).toContain('npm install --prefix ~/.node24 node@24');
  });

  it('refuses a Node 22 older than 22.12, which vitest does not run on', () => {
    expect(check('22.11.0').status).toBe(1);
    expect(check('v21.7.3').status).toBe(1);
  });

  it('passes quietly on Node 22.12 and later', () => {
    for (const version of ['v22.12.0', 'v22.20.1', 'v24.0.0', 'v26.1.0']) {
      expect(check(version)).toEqual({ status: 0, stderr: '', stdout: '' });
    }
  });

  it('is what npm runs before the test suites, and what package.json engines names', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.pretest).toBe('node cli/node-version.js');
    expect(pkg.scripts['pretest:e2e']).toBe('node cli/node-version.js');
    expect(pkg.engines.node).toBe('>=22.12');
  });

  it('is what an old Node meets first through npx: npm is not made to refuse it itself', () => {
    // With engine-strict, `npx telealert` on Node 20 stops at npm's EBADENGINE error before
    // cli/bin.js runs this check (the 3 AM case).
    const settings = readFileSync(join(REPO_ROOT, '.npmrc'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(settings.filter((line) => /^engine-strict\s*=\s*true$/.test(line))).toEqual([]);
  });
});
