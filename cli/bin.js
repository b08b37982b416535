#!/usr/bin/env node
// The npm bin: runs the TypeScript CLI through tsx's loader, so no build step is needed. The
// Node version is checked first, so an old Node says what to install rather than failing later.
import { requireNode } from './node-version.js';

requireNode();
const { register } = await import('tsx/esm/api');
register();
const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2));
