import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { type BundledFunction, deployToMoto, type MotoDeployment } from './deploy';
import { type Moto, startMoto } from './moto';
import { readStack, resourcesOfType, synthesize } from './template';

/** Twelve samples a minute: the shortest slot the rules allow (5 s), so the test waits little. */
const SAMPLES = 12;
const SLOT_MS = 5_000;
const TOKEN = 'token-samples';

let moto: Moto;
let simulator: RunningSimulator;
let directory: string;
let deployment: MotoDeployment;
let live: BundledFunction;
let handler: (event: unknown, context: Context) => Promise<Record<string, unknown>>;
let queueUrl: string;
let sqs: SQSClient;
let invocations = 0;

function rules(baseUrl: string): string {
  return [
    'timezone: Asia/Kolkata',
    'api:',
    `  baseUrl: ${baseUrl}`,
    '  tokenParameter: /e2e-samples/api-token',
    'sources:',
    `  live_calls: { every: 1m, samples: ${SAMPLES} }`,
    'channels:',
    '  oncall:',
    '    email: [oncall@example.com]',
    'rules:',
    '  - name: any-ringing',
    '    source: live_calls',
    '    where: { state: Ringing }',
    '    count: ">= 1"',
    '    notify: [oncall]',
    '',
  ].join('\n');
}

async function invoke(event: unknown): Promise<Record<string, unknown>> {
  invocations += 1;
  Object.assign(process.env, {
    ...live.environment,
    LAMBDA_TASK_ROOT: live.assetDir,
    AWS_LAMBDA_FUNCTION_NAME: live.logicalId,
  });
  const context = {
    awsRequestId: `req-${invocations}`,
    functionName: live.logicalId,
    getRemainingTimeInMillis: () => 55_000,
  } as unknown as Context;
  return handler(event, context);
}

/** What the event source mapping hands the function for one received message. */
function asEvent(message: Message): SQSEvent {
  return {
    Records: [
      {
        messageId: message.MessageId ?? '',
        receiptHandle: message.ReceiptHandle ?? '',
        body: message.Body ?? '',
        attributes: {} as SQSEvent['Records'][number]['attributes'],
        messageAttributes: {},
        md5OfBody: message.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:samples',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

const liveCallsRequests = () =>
  simulator.requests.filter((r) => r.path === '/v1/live_calls').length;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-e2e-samples-'));
  simulator = await startSimulator({ port: 0, scenario: 'quiet', token: TOKEN });
  const configFile = join(directory, 'telealert.yaml');
  await writeFile(configFile, rules(simulator.url));
  const outdir = join(directory, 'cdk.out');
  [moto] = await Promise.all([startMoto(), synthesize(configFile, outdir)]);
  moto.applyEnv();
  delete process.env.TELEALERT_CONFIG_FILE;
  const stack = readStack(outdir);
  deployment = await deployToMoto(stack, {
    endpoint: moto.endpoint,
    prefix: 'e2e-samples',
    token: TOKEN,
  });
  const found = deployment.functions.find((f) => f.cdkPath.includes('/Poller-live_calls/'));
  if (!found) throw new Error('no live calls function in the template');
  live = found;
  queueUrl = live.environment.TELEALERT_SAMPLE_QUEUE_URL ?? '';
  const [[queueId] = []] = resourcesOfType(stack, 'AWS::SQS::Queue').filter(
    ([, queue]) => queue.Properties?.RedrivePolicy !== undefined,
  );
  expect(queueUrl).toBe(deployment.physical[queueId ?? '']?.ref);
  Object.assign(process.env, live.environment, { LAMBDA_TASK_ROOT: live.assetDir });
  const module = (await import(pathToFileURL(join(live.assetDir, live.file)).href)) as Record<
    string,
    unknown
  >;
  handler = module[live.exportName] as typeof handler;
  sqs = new SQSClient({});
}, 180_000);

afterAll(async () => {
  sqs?.destroy();
  await simulator?.close();
  deployment?.destroy();
  await moto?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('Synthesized stack on moto: later samples through the sample queue', () => {
  it('takes the first sample and queues the other eleven, each delayed to its slot, then takes a queued one', async () => {
    const before = liveCallsRequests();
    const startedMs = Date.now();
    expect(await invoke({ id: 'scheduled-1' })).toMatchObject({ samples: 1, failures: 0 });
    expect(liveCallsRequests() - before).toBe(1);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessages'],
      }),
    );
    expect(Attributes).toMatchObject({
      ApproximateNumberOfMessagesDelayed: String(SAMPLES - 1),
      ApproximateNumberOfMessages: '0',
    });

    // The first queued sample comes out at its slot, alone.
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 10,
      }),
    );
    const arrivedMs = Date.now();
    expect(Messages).toHaveLength(1);
    const [message] = Messages as [Message];
    expect(JSON.parse(message.Body ?? '{}')).toMatchObject({ source: 'live_calls', sample: 1 });
    expect(arrivedMs - startedMs).toBeGreaterThanOrEqual(SLOT_MS - 1_000);

    // The handler takes it at once: one more request, no waiting.
    const taken = await invoke(asEvent(message));
    expect(taken).toMatchObject({ samples: 1, samplesPlanned: 1, failures: 0 });
    expect(liveCallsRequests() - before).toBe(2);
  }, 30_000);

  it('drops a queued sample delivered again after its slot has passed', async () => {
    const before = liveCallsRequests();
    const stale = JSON.stringify({
      source: 'live_calls',
      sample: 3,
      dueAt: new Date(Date.now() - SLOT_MS).toISOString(),
    });
    const summary = await invoke(asEvent({ MessageId: 'late', Body: stale }));
    expect(summary).toMatchObject({ samples: 0 });
    expect(liveCallsRequests()).toBe(before);
  });
});
