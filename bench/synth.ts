import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { TelealertStack } from '../infra/stack';

/** One bundled function of a synthesized stack. */
export interface BundledAsset {
  /** `live_calls` or `payments`, from the construct path. */
  readonly source: string;
  readonly dir: string;
  /** `index.mjs`, the code Lambda loads. */
  readonly file: string;
  readonly bytes: number;
}

/**
 * Synthesizes the stack for `configFile` into `outdir`, bundling the functions with the AWS SDK
 * inside or left to the Lambda runtime, and lists the bundles. Same construct and options as
 * `cdk synth` (the CLI would only add the app entry around it).
 */
export function synthesize(configFile: string, outdir: string, bundleAwsSdk: boolean) {
  // The CLI sets these; the bundles are found through the asset metadata they enable.
  const app = new App({
    outdir,
    context: { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true },
  });
  new TelealertStack(app, 'Telealert', {
    alerting: { configFile: resolve(configFile), bundleAwsSdk },
  });
  const assembly = app.synth();
  const template = JSON.parse(
    readFileSync(join(assembly.directory, 'Telealert.template.json'), 'utf8'),
  ) as { Resources: Record<string, { Type: string; Metadata?: Record<string, unknown> }> };
  const assets: BundledAsset[] = [];
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const assetPath = resource.Metadata?.['aws:asset:path'];
    const cdkPath = String(resource.Metadata?.['aws:cdk:path'] ?? '');
    const source = /Poller-([a-z_]+)\//.exec(cdkPath)?.[1];
    if (typeof assetPath !== 'string' || source === undefined) continue;
    const dir = join(assembly.directory, assetPath);
    const file = join(dir, 'index.mjs');
    assets.push({ source, dir, file, bytes: statSync(file).size });
  }
  return assets.sort((a, b) => a.source.localeCompare(b.source));
}
