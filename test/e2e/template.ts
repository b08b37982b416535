import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** One resource of a CloudFormation template, as `cdk synth` writes it. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

/** The synthesized stack: its template and the cloud assembly folder it came from. */
export interface SynthesizedStack {
  readonly outdir: string;
  readonly resources: Readonly<Record<string, TemplateResource>>;
}

/**
 * Runs `cdk synth -q` as a user does (cdk.json, offline, no credentials) with the rules file
 * from `-c config=`, into `outdir`. Bundles the real handler entries with esbuild.
 */
export async function synthesize(configFile: string, outdir: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' };
  // The synth must not depend on any AWS setting (the suite points these at moto).
  for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
  await promisify(execFile)(
    join(REPO_ROOT, 'node_modules', '.bin', 'cdk'),
    ['synth', '-q', '-o', outdir, '-c', `config=${configFile}`],
    { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 },
  );
}

interface Manifest {
  readonly artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
}

/** Reads the one stack of a cloud assembly (through `manifest.json`, as the CLI does). */
export function readStack(outdir: string): SynthesizedStack {
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as Manifest;
  const stacks = Object.values(manifest.artifacts).filter(
    (artifact) => artifact.type === 'aws:cloudformation:stack',
  );
  const templateFile = stacks[0]?.properties?.templateFile;
  if (stacks.length !== 1 || !templateFile) {
    throw new Error(`expected one stack in ${outdir}, found ${stacks.length}`);
  }
  const template = JSON.parse(readFileSync(join(outdir, templateFile), 'utf8')) as {
    Resources: Record<string, TemplateResource>;
  };
  return { outdir, resources: template.Resources };
}

/** The resources of one type, by logical id. */
export function resourcesOfType(
  stack: SynthesizedStack,
  type: string,
): [string, TemplateResource][] {
  return Object.entries(stack.resources).filter(([, resource]) => resource.Type === type);
}

/** What a deployment made of each logical id: what `Ref` and `Fn::GetAtt` return. */
export interface Physical {
  readonly ref: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

/** The pseudo parameters a moto deployment resolves to (moto's default account). */
export const PSEUDO = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '123456789012',
  'AWS::URLSuffix': 'amazonaws.com',
} as const satisfies Record<string, string>;

/**
 * Resolves the intrinsics the stack's properties use (`Ref`, `Fn::GetAtt`, `Fn::Join`) against
 * what was created. Anything else, or a reference to something not created, throws: the test
 * must not run on a value it made up.
 */
export function resolveValue(
  value: unknown,
  physical: Readonly<Record<string, Physical>>,
): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, physical));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
    const [intrinsic, argument] = first;
    if (intrinsic === 'Ref') return resolveRef(String(argument), physical);
    if (intrinsic === 'Fn::GetAtt') {
      const [id, attribute] = argument as [string, string];
      const resolved = physical[id]?.attributes?.[attribute];
      if (resolved === undefined) throw new Error(`cannot resolve Fn::GetAtt ${id}.${attribute}`);
      return resolved;
    }
    if (intrinsic === 'Fn::Join') {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map((part) => String(resolveValue(part, physical))).join(separator);
    }
    throw new Error(`unsupported intrinsic ${intrinsic}`);
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveValue(item, physical)]));
}

function resolveRef(id: string, physical: Readonly<Record<string, Physical>>): string {
  if (id in PSEUDO) return PSEUDO[id as keyof typeof PSEUDO];
  const resolved = physical[id]?.ref;
  if (resolved === undefined) throw new Error(`cannot resolve Ref ${id}`);
  return resolved;
}
