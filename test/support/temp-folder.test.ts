import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_TEMP_VARIABLE } from './temp-folder';

describe('Test run: temporary folders', () => {
  it('makes every temporary folder inside the run folder the global teardown removes', () => {
    const run = process.env[RUN_TEMP_VARIABLE];
    expect(run).toBeDefined();
    const made = mkdtempSync(join(tmpdir(), 'telealert-probe-'));
    expect(relative(run as string, made).startsWith('..')).toBe(false);
  });
});
