import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { RehearsalError } from './errors';
import { ACCOUNT, type MotoServer, REGION } from './moto';
import type { DeployedFunction } from './stack';

/** A deployed function's code, unpacked from the bootstrap bucket, ready to run in this process. */
export interface DeployedHandler {
  readonly fn: DeployedFunction;
  /** Where its deployed code was unpacked. */
  readonly directory: string;
  /** The environment it runs with: the deployed variables and what Lambda adds. */
  readonly environment: Readonly<Record<string, string>>;
  /** Invokes the handler once with `event`, in its environment (put back afterwards). */
  invoke(event: unknown, remainingMs?: number): Promise<unknown>;
}

let invocations = 0;

function lambdaContext(fn: DeployedFunction, remainingMs: number): Context {
  invocations += 1;
  return {
    awsRequestId: `rehearsal-${invocations}`,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: fn.arn,
    memoryLimitInMB: String(fn.memoryMb ?? 128),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: 'rehearsal',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** An EventBridge schedule's event for `fn`, as its rule would send at `atMs`. */
export function scheduledEvent(fn: DeployedFunction, atMs: number): Record<string, unknown> {
  invocations += 1;
  return {
    version: '0',
    id: `rehearsal-event-${invocations}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT,
    time: new Date(atMs).toISOString(),
    region: REGION,
    resources: fn.schedules.map((s) => `arn:aws:events:${REGION}:${ACCOUNT}:rule/${s.rule}`),
    detail: {},
  };
}

async function withEnvironment<T>(
  environment: Readonly<Record<string, string>>,
  action: () => Promise<T>,
): Promise<T> {
  const before = Object.keys(environment).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, environment);
  try {
    return await action();
  } finally {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * moto's CloudFormation names a queue by its AWS URL (`https://sqs.REGION.amazonaws.com/...`),
 * and the SDK sends to a queue URL's own host: in this process the queue is moto's.
 */
function onMoto(value: string, moto: MotoServer): string {
  return value.replace(/^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com\//, `${moto.endpoint}/`);
}

/**
 * Fetches `fn`'s deployed code (the zip `cdk deploy` published to the bootstrap bucket), unpacks
 * it under `workDir` and loads its handler (`Handler` of the function, as Lambda's Node.js
 * runtime resolves it) with the function's deployed environment, as a fresh container would.
 */
export async function loadDeployedHandler(
  moto: MotoServer,
  fn: DeployedFunction,
  workDir: string,
  options: {
    /** No logs or metrics on stdout (CloudWatch's, on AWS): the rehearsal prints its own. */
    readonly quiet?: boolean;
  } = {},
): Promise<DeployedHandler> {
  const bucket = fn.codeBucket;
  if (!bucket || !fn.codeKey) throw new RehearsalError(`function ${fn.name} has no code in S3`);
  // moto refuses an anonymous read of a private object but checks no signature: naming the
  // credentials is enough (the project has no S3 client, and this only ever talks to moto).
  const response = await fetch(`${moto.endpoint}/${bucket}/${fn.codeKey}`, {
    headers: {
      Authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${REGION}/s3/aws4_request, SignedHeaders=host, Signature=moto`,
    },
  });
  if (!response.ok) {
    throw new RehearsalError(`the code of ${fn.name} (${fn.codeKey}) is not in ${bucket}`);
  }
  const directory = join(workDir, fn.name, fn.codeKey.replace(/[^A-Za-z0-9.]/g, '_'));
  await mkdir(directory, { recursive: true });
  const zip = join(directory, '..', `${fn.codeKey.replace(/[^A-Za-z0-9.]/g, '_')}.zip`);
  await writeFile(zip, Buffer.from(await response.arrayBuffer()));
  // Python is already here for moto, and its zipfile unpacks what the CDK CLI packed.
  const python = process.env.MOTO_PYTHON ?? 'python3';
  const unzip = spawnSync(python, ['-m', 'zipfile', '-e', zip, directory], { encoding: 'utf8' });
  if (unzip.status !== 0) throw new RehearsalError(`cannot unpack ${zip}: ${unzip.stderr}`);

  const [file = 'index', exportName = 'handler'] = (fn.handler ?? 'index.handler').split('.');
  const entry = ['.mjs', '.js', '.cjs']
    .map((extension) => join(directory, `${file}${extension}`))
    .find((path) => existsSync(path));
  if (!entry) throw new RehearsalError(`the code of ${fn.name} has no ${file}.mjs or ${file}.js`);
  const environment: Record<string, string> = {
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb ?? 128),
    LAMBDA_TASK_ROOT: directory,
  };
  for (const [name, value] of Object.entries(fn.environment)) {
    environment[name] = onMoto(value, moto);
  }
  if (options.quiet) {
    environment.POWERTOOLS_LOG_LEVEL = 'SILENT';
    environment.POWERTOOLS_METRICS_DISABLED = 'true';
  }
  // Powertools reads its settings when the module loads: load it in the function's environment.
  const module = (await withEnvironment(
    environment,
    async () => (await import(pathToFileURL(entry).href)) as Record<string, unknown>,
  )) as Record<string, unknown>;
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    throw new RehearsalError(`${entry} exports no function ${exportName}`);
  }
  return {
    fn,
    directory,
    environment,
    invoke(event, remainingMs = Math.max(1, (fn.timeoutS ?? 60) - 1) * 1000) {
      return withEnvironment(environment, () =>
        Promise.resolve(handler(event, lambdaContext(fn, remainingMs))),
      );
    },
  };
}
