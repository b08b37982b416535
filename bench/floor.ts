import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import {
  CREDENTIAL_CHAIN_PACKAGE,
  ESM_REQUIRE_BANNER,
  LAMBDA_CREDENTIALS_MODULE,
  NODE_HTTP_MODULE,
} from '../infra/poller';

const FUNCTIONS_DIR = resolve('functions');

/**
 * Bundles `bench/floor/handler.ts` into `outdir` with the options `infra/poller.ts` gives the
 * pollers' NodejsFunction (ESM for node24, minified, source map beside it, the same aliases),
 * the SDK inside or left to the runtime.
 */
export async function bundleFloor(outdir: string, sdk: 'bundled' | 'external') {
  const file = join(outdir, 'index.mjs');
  await build({
    entryPoints: [resolve('bench/floor/handler.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: ESM_REQUIRE_BANNER },
    external: sdk === 'bundled' ? [] : ['@aws-sdk/*'],
    alias: {
      'node:http': join(FUNCTIONS_DIR, NODE_HTTP_MODULE),
      ...(sdk === 'bundled'
        ? { [CREDENTIAL_CHAIN_PACKAGE]: join(FUNCTIONS_DIR, LAMBDA_CREDENTIALS_MODULE) }
        : {}),
    },
    logLevel: 'silent',
  });
  return { source: 'sdk-floor', file, bytes: statSync(file).size };
}
