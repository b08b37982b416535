import { join } from 'node:path';
import { bundleLikePollers } from './bundle';

/**
 * Bundles `bench/floor/handler.ts` into `outdir` as the pollers are bundled, the SDK inside or
 * left to the runtime.
 */
export async function bundleFloor(outdir: string, sdk: 'bundled' | 'external') {
  const file = join(outdir, 'index.mjs');
  const bytes = await bundleLikePollers('bench/floor/handler.ts', file, sdk);
  return { source: 'sdk-floor', file, bytes };
}
