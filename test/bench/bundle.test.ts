import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleComposition, bundleLikePollers } from '../../bench/bundle';

describe('Function: bundleComposition', () => {
  it('accounts for the external bundle by package and folder, the SDK left out', async () => {
    const parts = await bundleComposition('functions/payments.ts');
    const directory = mkdtempSync(join(tmpdir(), 'telealert-bundle-'));
    const bytes = await bundleLikePollers(
      'functions/payments.ts',
      join(directory, 'index.mjs'),
      'external',
    ).finally(() => rmSync(directory, { recursive: true, force: true }));
    const total = parts.reduce((sum, part) => sum + part.kb, 0) * 1024;
    // Parts are rounded to 0.1 KB; the banner, esbuild's module glue and the license comment
    // belong to no input.
    expect(total).toBeLessThan(bytes * 1.01);
    expect(total).toBeGreaterThan(bytes * 0.95);
    expect(parts.map((part) => part.part)).toEqual(
      expect.arrayContaining([
        '@aws-lambda-powertools/logger',
        'shared/engine',
        'functions/handler.ts',
      ]),
    );
    expect(parts.some((part) => part.part.includes('@aws-sdk'))).toBe(false);
    const sizes = parts.map((part) => part.kb);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  });

  it('leaves zod out of the pollers: synth validated the rules, and records are read without it', async () => {
    for (const entry of ['functions/live-calls.ts', 'functions/payments.ts']) {
      const parts = (await bundleComposition(entry)).map((part) => part.part);
      expect(parts).toContain('shared/config');
      expect(parts).not.toContain('zod');
    }
  });

  it('leaves the phone numbers library out of every Lambda: numbers are validated at synth, records read without it', async () => {
    for (const entry of [
      'functions/live-calls.ts',
      'functions/payments.ts',
      'functions/notifier.ts',
    ]) {
      const parts = (await bundleComposition(entry)).map((part) => part.part);
      expect(parts, entry).not.toContain('libphonenumber-js');
      expect(parts, entry).not.toContain('shared/phone');
    }
  });
});
