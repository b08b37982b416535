import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromJSONSchema } from 'zod';
import { DynamoNotifierStore } from '../../functions/adapters/dynamodb-notifier';
import { handler as chatActionHandler } from '../../functions/chat-action';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import { CHAT_BUTTONS, chatCommand, chatFunctionName } from '../../infra/chat';
import { parseConfig } from '../../shared/config/load';
import { type ChatBody, chatBody } from '../../shared/notifier/chat';
import type { Message } from '../../shared/notifier/types';
import type { ChatActionAnswer } from '../../shared/runner/chat-action';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { Scenario } from '../../simulator/scenarios/types';
import {
  invoke,
  type RuntimeHarness,
  silentLogger,
  startRuntimeHarness,
  TOKEN_PARAMETER,
} from './lambda';

/** Saturday 21 November 2026, 10:00 in India. */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const MINUTE = 60_000;
const STACK = 'e2e-chat';
const DID = DIDS[0] as string;
const AGENT = AGENTS[0] as (typeof AGENTS)[number];

const schema = fromJSONSchema(
  JSON.parse(
    readFileSync(join(import.meta.dirname, '../notifier/chat-notification.schema.json'), 'utf8'),
  ),
);

/** Two calls ring on two DIDs for half an hour: two groups, two threads. */
const scenario: Scenario = {
  name: 'chat',
  description: 'two long ringing calls',
  windowMs: 60 * MINUTE,
  maxCallMs: 40 * MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return {
      calls: [1, 2].map((serial) => ({
        serial,
        startMs: 0,
        ringMs: 30 * MINUTE,
        direction: 1 as const,
        did: DIDS[serial - 1] as string,
        caller: `+91900000000${serial}`,
        agents: [AGENT],
      })),
      payments: [],
    };
  },
};

function rules(baseUrl: string, tokenParameter: string): string {
  return `
timezone: Asia/Kolkata
api: { baseUrl: ${baseUrl}, tokenParameter: ${tokenParameter}, timeout: 5s }
sources:
  live_calls: { every: 1m }
channels:
  oncall:
    email: [oncall@example.com]
    group: { by: [rule, did] }
    slack: { workspaceId: T0123ABCD, channelId: C0456EFGH }
  leads: { email: [leads@example.com] }
rules:
  - name: ringing-on-did
    source: live_calls
    where: { state: Ringing }
    count: ">= 1"
    groupBy: [did]
    severity: critical
    notify: [oncall]
    escalate: [{ after: 10m, notify: [leads] }]
`;
}

const clock = new ManualClock(T0);
// The stack's name, as the stack gives the notifier; read when its handler is made, below.
process.env.TELEALERT_STACK = STACK;
let harness: RuntimeHarness;
let server: Server;
/** What the HTTP subscriber on loopback received: SNS's notification bodies. */
const received: { Type?: string; Message?: string; MessageId?: string }[] = [];

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  harness = await startRuntimeHarness({
    prefix: 'e2c',
    scenario,
    clock,
    channels: { oncall: {}, leads: {} },
    rules,
  });
  const { port } = server.address() as AddressInfo;
  const sns = new SNSClient({});
  try {
    await sns.send(
      new SubscribeCommand({
        TopicArn: harness.stack.topics.oncall,
        Protocol: 'http',
        Endpoint: `http://127.0.0.1:${port}/sns`,
      }),
    );
  } finally {
    sns.destroy();
  }
  vi.useFakeTimers({ toFake: ['Date'] });
}, 120_000);

afterAll(async () => {
  vi.useRealTimers();
  delete process.env.TELEALERT_STACK;
  await harness?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/**
 * What the chat service runs when a button is pressed: the button's command as the stack
 * defines it, its variable replaced by the notification's value, the payload given to the
 * function.
 */
function press(body: ChatBody, action: 'ack' | 'silence'): unknown {
  const button = CHAT_BUTTONS.find((b) => b.action === action);
  if (button === undefined) throw new Error(`no ${action} button`);
  const value = body.metadata.additionalContext[button.variable] ?? '';
  const command = chatCommand(chatFunctionName(STACK), button).replace(
    `$${button.variable}`,
    value,
  );
  return JSON.parse(command.slice(command.indexOf('--payload ') + '--payload '.length));
}

const config = () => parseConfig(rules('http://127.0.0.1:1', TOKEN_PARAMETER), 'telealert.yaml');

// One timeline: each test continues where the previous one left off.
describe('Chat on moto: the chat body on the topic, the Acknowledge button on the deployed table', () => {
  const logger = silentLogger();
  const liveCalls = createPollerHandler('live_calls', { logger });
  const notifier = createNotifierHandler({ logger });
  let messages: Message[] = [];
  let bodies: ChatBody[] = [];

  it("delivers each message's chat body to an HTTP subscriber of the channel's topic", async () => {
    at(T0 + 30_000);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    messages = (await harness.stack.drain('oncall')) as unknown as Message[];
    expect(messages.map((m) => m.kind)).toEqual(['alerts', 'alerts']);
    const notifications = received.filter((item) => item.Type === 'Notification');
    expect(notifications).toHaveLength(2);
    bodies = notifications.map((item) => JSON.parse(item.Message ?? '') as ChatBody);
    for (const body of bodies) expect(schema.safeParse(body).error?.issues ?? []).toEqual([]);
    // The same body the notifier renders for the message the queue got, with the stack's name.
    const expected = messages.map((message) =>
      chatBody(message, { config: config(), stack: STACK }),
    );
    expect([...bodies].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...expected].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(new Set(bodies.map((body) => body.metadata.threadId)).size).toBe(2);
    expect(bodies[0]?.content.nextSteps[0]).toContain(`--stack '${STACK}'`);
  });

  it('acknowledges the alert when its Acknowledge button runs, the channel recorded as who pressed, and escalation stops', async () => {
    const body = bodies.find((b) => b.content.description.includes(DID));
    const message = messages.find((m) => m.id === body?.id);
    const key = message?.alerts[0]?.key;
    if (body === undefined || key === undefined) throw new Error(`no chat body for ${DID}`);
    at(T0 + 2 * MINUTE);
    const answer = (await chatActionHandler(press(body, 'ack'))) as ChatActionAnswer;
    expect(answer).toEqual({ ok: true, text: expect.stringContaining(key) });

    const dynamodb = new DynamoDBClient({});
    try {
      const store = new DynamoNotifierStore({
        client: dynamodb,
        tableName: harness.stack.tableName,
      });
      const { state } = await store.loadNotifier();
      expect(state?.alerts?.[key]?.ack).toEqual({
        by: 'chat button in oncall',
        at: T0 + 2 * MINUTE,
        via: 'chat',
      });
    } finally {
      dynamodb.destroy();
    }

    at(T0 + 11 * MINUTE);
    await invoke(liveCalls);
    await harness.streamToNotifier(notifier);
    const step = await invoke<NotifierSummary>(notifier);
    expect(step.decided.map((item) => item.kind)).toEqual([]);
    const leads = (await harness.stack.drain('leads')) as unknown as Message[];
    // Only the other DID's alert, never acknowledged, escalates.
    expect(leads.map((m) => m.alerts.map((a) => a.key))).toEqual([
      [expect.not.stringMatching(DID.replace('+', '\\+'))],
    ]);
  });

  it('silences the other alert for an hour when its Silence 1h button runs', async () => {
    const other = bodies.find((b) => !b.content.description.includes(DID));
    if (other === undefined) throw new Error('no second chat body');
    at(T0 + 12 * MINUTE);
    const answer = (await chatActionHandler(press(other, 'silence'))) as ChatActionAnswer;
    expect(answer.ok).toBe(true);
    const dynamodb = new DynamoDBClient({});
    try {
      const store = new DynamoNotifierStore({
        client: dynamodb,
        tableName: harness.stack.tableName,
      });
      const { state } = await store.loadNotifier();
      expect(state?.silences).toEqual([
        expect.objectContaining({
          startsAt: T0 + 12 * MINUTE,
          endsAt: T0 + 72 * MINUTE,
          createdBy: 'chat button in oncall',
          matchers: expect.objectContaining({ rule: 'ringing-on-did' }),
        }),
      ]);
    } finally {
      dynamodb.destroy();
    }
  });

  it('answers a press that carries no target without changing anything', async () => {
    // A variable the service could not fill stays as written in the command.
    const answer = (await chatActionHandler({ ack: '$ackTarget' })) as ChatActionAnswer;
    expect(answer.ok).toBe(false);
  });
});
