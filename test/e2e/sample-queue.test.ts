import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployedHandler } from '../../cli/deploy-local/handlers';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { type Deployment, deployRules } from './deployed';

/** Twelve samples a minute: the shortest slot the rules allow (5 s), so the test waits little. */
const SAMPLES = 12;
const SLOT_MS = 5_000;
const TOKEN = 'token-samples';

let simulator: RunningSimulator;
let deployment: Deployment;
let live: DeployedHandler;
let queueUrl: string;
let sqs: SQSClient;

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

/** Runs the live calls function's deployed code with `event`, as Lambda would. */
async function invoke(event: unknown): Promise<Record<string, unknown>> {
  return (await live.invoke(event, 55_000)) as Record<string, unknown>;
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
  simulator = await startSimulator({ port: 0, scenario: 'quiet', token: TOKEN });
  deployment = await deployRules(rules(simulator.url), {
    prefix: 'e2e-samples',
    tokenParameter: '/e2e-samples/api-token',
    token: TOKEN,
  });
  const fn = deployment.stack.functions.find((f) => f.logicalId.includes('Pollerlivecalls'));
  const found = fn && deployment.handlers.get(fn.logicalId);
  if (!fn || !found) throw new Error('no live calls function in the deployed stack');
  live = found;
  queueUrl = live.environment.TELEALERT_SAMPLE_QUEUE_URL ?? '';
  // The queue the function is told of is the one that invokes it, redriving to the dead letters.
  const queue = deployment.stack.queues.find((q) => q.attributes.RedrivePolicy !== undefined);
  expect(queueUrl.split('/').pop()).toBe(queue?.url.split('/').pop());
  expect(fn.eventSources).toEqual([{ arn: queue?.attributes.QueueArn, batchSize: 1 }]);
  sqs = new SQSClient({});
}, 300_000);

afterAll(async () => {
  sqs?.destroy();
  await simulator?.close();
  await deployment?.close();
});

describe('The stack deployed on moto: later samples through the sample queue', () => {
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
