import { defineConfig } from 'vitest/config';
import { requireNode } from './cli/node-version.js';

// `npx vitest` directly skips npm's pretest check; on an old Node vitest would fail deep inside.
requireNode();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**'],
    testTimeout: 20_000,
    pool: 'forks',
    // One temporary folder for the run, removed after it: nothing is left in the system's.
    globalSetup: ['test/support/temp-folder.ts'],
  },
});
