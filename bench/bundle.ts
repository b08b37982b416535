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
 * Bundles `entry` into `outfile` with the options `infra/poller.ts` gives the pollers'
 * NodejsFunction (ESM for node24, minified, source map beside it, the same banner and aliases),
 * the SDK inside or left to the runtime: a bench program run as the functions run. Its size.
 */
export async function bundleLikePollers(
  entry: string,
  outfile: string,
  sdk: 'bundled' | 'external',
): Promise<number> {
  await build({
    entryPoints: [resolve(entry)],
    outfile,
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
  return statSync(outfile).size;
}
