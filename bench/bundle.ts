import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import {
  CREDENTIAL_CHAIN_PACKAGE,
  ESM_REQUIRE_BANNER,
  LAMBDA_CREDENTIALS_MODULE,
  NODE_HTTP_MODULE,
} from '../infra/poller';
import { round } from './stats';

const FUNCTIONS_DIR = resolve('functions');

/**
 * The options `infra/poller.ts` gives the pollers' NodejsFunction (ESM for node24, minified,
 * source map beside it, the same banner and aliases), the SDK inside or left to the runtime.
 */
function pollerOptions(entry: string, outfile: string, sdk: 'bundled' | 'external'): BuildOptions {
  return {
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
  };
}

/**
 * Bundles `entry` into `outfile` as the pollers are bundled: a bench program run as the
 * functions run. Its size.
 */
export async function bundleLikePollers(
  entry: string,
  outfile: string,
  sdk: 'bundled' | 'external',
): Promise<number> {
  await build(pollerOptions(entry, outfile, sdk));
  return statSync(outfile).size;
}

/** What one part of a bundle weighs: a package, or a folder of telealert's own code. */
export interface BundlePart {
  readonly part: string;
  readonly kb: number;
}

/**
 * What `entry`, bundled as the pollers are with the SDK left out, is made of, heaviest first,
 * from esbuild's metafile: the minified bytes of each package (a copy nested under another
 * package is named by both: `a > b`) and of each folder of telealert's own code
 * (`shared/config`). Nothing is written.
 */
export async function bundleComposition(entry: string): Promise<BundlePart[]> {
  const result = await build({
    ...pollerOptions(entry, join(FUNCTIONS_DIR, 'index.mjs'), 'external'),
    metafile: true,
    write: false,
  });
  const parts = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const packages = [...input.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((m) => m[1]);
      const part =
        packages.length > 0 ? packages.join(' > ') : input.split('/').slice(0, 2).join('/');
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  }
  return [...parts]
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([part, bytes]) => ({ part, kb: round(bytes / 1024, 1) }));
}
