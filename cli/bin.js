#!/usr/bin/env node
// The npm bin: runs the TypeScript CLI through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('./main.ts');
process.exitCode = await runCli(process.argv.slice(2));
