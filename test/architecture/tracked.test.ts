import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

describe('what the repository tracks', () => {
  it('tracks no installed packages or build output, not even as a symlink (a clean clone installs its own)', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((path) => path !== '');
    expect(tracked.length).toBeGreaterThan(100);
    expect(
      tracked.filter((path) =>
        /^(node_modules|cdk\.out)(\/|$)|(^|\/)\.ci\/\.node(\/|$)/.test(path),
      ),
    ).toEqual([]);
  });
});
