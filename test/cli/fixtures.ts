import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** The repository root (where the shipped telealert.yaml and examples/ live). */
export const REPO_ROOT = new URL('../..', import.meta.url).pathname;
export const SHIPPED_RULES = join(REPO_ROOT, 'telealert.yaml');
export const SHIPPED_RULES_TEXT = readFileSync(SHIPPED_RULES, 'utf8');

/** A temporary working directory with the given files; `remove()` deletes it. */
export function workDir(files: Record<string, string> = {}): {
  readonly path: string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const path = mkdtempSync(join(tmpdir(), 'telealert-cli-'));
  const write = (name: string, text: string) => {
    const file = join(path, name);
    writeFileSync(file, text);
    return file;
  };
  for (const [name, text] of Object.entries(files)) write(name, text);
  return { path, write, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A `workDir` factory for one describe block: every directory it made is removed after each
 * test.
 */
export function workDirs(): (files?: Record<string, string>) => ReturnType<typeof workDir> {
  const dirs: ReturnType<typeof workDir>[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
  });
  return (files = {}) => {
    const dir = workDir(files);
    dirs.push(dir);
    return dir;
  };
}

/** A rules file with a mistake in every section, each reported on its own line. */
export const BAD_RULES = `timezone: Mars/Olympus
sources:
  live_calls:
    every: 30s
channels:
  oncall:
    email: [oncall@example.com]
rules:
  - name: Bad_Name
    source: live_calls
    where: { state: Ringing, stat: x }
    notify: [pager]
  - name: big
    source: payments
    where: { amount_paid: "=> 5" }
    notify: [oncall]
    sevrity: info
`;
