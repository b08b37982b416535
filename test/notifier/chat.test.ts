import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromJSONSchema } from 'zod';
import { parseConfig } from '../../shared/config/load';
import { snsBodies } from '../../shared/notifier/bodies';
import {
  CHAT_LIMITS,
  chatBody,
  chatBytes,
  chatThreadId,
  decodeChatPress,
  decodeChatTarget,
} from '../../shared/notifier/chat';
import { MESSAGE_KINDS, type Message } from '../../shared/notifier/types';
import { replayMessages } from '../../shared/timeline/messages';
import { readTimeline } from '../../shared/timeline/parse';

const schema = fromJSONSchema(
  JSON.parse(readFileSync(join(import.meta.dirname, 'chat-notification.schema.json'), 'utf8')),
);

// Hindi and emoji label values; the long one is kept by the engine as its start and a digest.
const RAJESH = 'राजेश कुमार 🚨📞';
const LONG = `${'सुनीता शर्मा '.repeat(30)}${'🔥'.repeat(40)}`;

const config = parseConfig(
  `
timezone: Asia/Kolkata
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
ack: { did: "+918000000099" }
people:
  asha: { email: asha@example.com }
  ravi: { email: ravi@example.com }
rotations:
  leads: { members: [asha, ravi], shift: 1d, handoff: "10:10", start: "2026-11-20" }
channels:
  oncall:
    sms: ["+919800000001"]
    email: [oncall@example.com]
    group: { by: [rule, agent_name] }
    slack: { workspaceId: T0123ABCD, channelId: C0456EFGH }
  managers:
    email: [managers@example.com]
    rotation: leads
    teams:
      tenantId: 8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b
      teamId: 1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d
      channelId: "19%3a0123456789abcdef%40thread.tacv2"
  finance:
    email: [finance@example.com]
    active: { days: [mon], from: "09:00", to: "18:00" }
    slack: { workspaceId: T0123ABCD, channelId: C0999ZZZZ }
rules:
  - name: agent-ringing
    source: live_calls
    where: { state: Ringing }
    count: "> 0"
    groupBy: [agent_name]
    repeat: 5m
    severity: critical
    notify: [oncall, finance]
    escalate: [{ after: 5m, notify: [managers] }]
`,
  'telealert.yaml',
);

function ringing(callId: string, agent: string) {
  return { call_id: callId, state: 'Ringing', did: '+918000000001', agent_name: agent };
}

const lines = [
  { at: '2026-11-21 10:00:00', records: [ringing('c1', RAJESH), ringing('c2', LONG)] },
  { at: '2026-11-21 10:05:00', records: [ringing('c1', RAJESH), ringing('c2', LONG)] },
  {
    at: '2026-11-21 10:08:00',
    records: [
      ringing('c2', LONG),
      { call_id: 'a1', state: 'Ringing', did: '08000000099', source: '09800000001' },
    ],
  },
  { at: '2026-11-21 10:11:00', records: [ringing('c2', LONG)] },
  { at: '2026-11-21 10:20:00', records: [] },
].map((line) => JSON.stringify({ ...line, source: 'live_calls' }));

const timeline = readTimeline(lines.join('\n'), 'chat.jsonl', config.timezone);
const messages: readonly Message[] = replayMessages(config, timeline.entries).messages;
const bodies = messages.map((message) => chatBody(message, { config, stack: 'telealert' }));

describe('Function: chatBody', () => {
  it('renders every kind of message the notifier sends (alerts, digest, escalation, ack, handoff) in the timeline', () => {
    // A kind added later fails here until the timeline tells it too.
    expect(new Set(messages.map((message) => message.kind))).toEqual(new Set(MESSAGE_KINDS));
  });

  it('is a valid custom notification for every message, Hindi and emoji label values included', () => {
    for (const body of bodies) {
      const result = schema.safeParse(body);
      expect(result.error?.issues ?? []).toEqual([]);
    }
    expect(messages.some((message) => message.text.includes('राजेश'))).toBe(true);
  });

  it('stays within the byte bound a publish leaves it, each field within its limit', () => {
    for (const body of bodies) {
      expect(chatBytes(body)).toBeLessThanOrEqual(CHAT_LIMITS.bytes);
      expect(body.content.title.length).toBeLessThanOrEqual(CHAT_LIMITS.title);
      expect(body.content.description.length).toBeLessThanOrEqual(CHAT_LIMITS.description);
    }
  });

  it('tells the same facts as the email: its text, times in the configured zone', () => {
    messages.forEach((message, index) => {
      const description = bodies[index]?.content.description ?? '';
      expect(description).toContain(message.text.split('\n')[0]);
      expect(description).toContain('IST');
    });
  });

  it('cuts a long text at the description limit, never inside an emoji, and says so', () => {
    const [first] = messages;
    if (first === undefined) throw new Error('no message');
    const long = { ...first, text: `${'🔥'.repeat(2_000)}${'राजेश '.repeat(800)}` };
    const body = chatBody(long, { config });
    expect(body.content.description.length).toBeLessThanOrEqual(CHAT_LIMITS.description);
    expect(body.content.description).toContain('…');
    expect(body.content.description).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(chatBytes(body)).toBeLessThanOrEqual(CHAT_LIMITS.bytes);
    expect(schema.safeParse(body).success).toBe(true);
  });

  it("threads a channel's hand-offs apart from its incidents, with their own mark", () => {
    const handoffs = messages.filter((message) => message.kind === 'handoff');
    expect(handoffs.length).toBeGreaterThan(0);
    for (const message of handoffs) {
      const body = bodies[messages.indexOf(message)];
      expect(body?.metadata.threadId).toBe(`${message.channel}-handoff`);
      expect(body?.content.title.startsWith('📟 ')).toBe(true);
    }
  });

  it('threads an incident: one thread per group of a channel, another group another thread', () => {
    const threads = new Map<string, Set<string>>();
    messages
      .filter((message) => message.channel === 'oncall' && message.kind === 'alerts')
      .forEach((message) => {
        const agent = message.alerts[0]?.labels.agent_name ?? '';
        const set = threads.get(agent) ?? new Set();
        set.add(chatThreadId(message, config));
        threads.set(agent, set);
      });
    expect(threads.size).toBe(2);
    for (const ids of threads.values()) expect(ids.size).toBe(1);
    const [a, b] = [...threads.values()].map((ids) => [...ids][0]);
    expect(a).not.toBe(b);
    const first = messages.find((message) => message.kind === 'alerts');
    if (first === undefined) throw new Error('no alerts message');
    expect(bodies[messages.indexOf(first)]?.metadata.threadId).toBe(chatThreadId(first, config));
  });

  it('gives the exact commands to paste and the buttons a target that acknowledges the alert', () => {
    const index = messages.findIndex(
      (message) => message.kind === 'alerts' && message.alerts[0]?.labels.agent_name === RAJESH,
    );
    const message = messages[index];
    const body = bodies[index];
    if (message === undefined || body === undefined) throw new Error('no message for Rajesh');
    const key = message.alerts[0]?.key ?? '';
    expect(body.content.nextSteps[0]).toBe(
      `Acknowledge: \`telealert ack '${key}' --stack 'telealert' --by NAME\``,
    );
    expect(body.content.nextSteps[1]).toContain(`--match 'labels.agent_name=${RAJESH}'`);
    expect(body.content.nextSteps[1]).toContain('--for 1h');
    expect(decodeChatTarget(body.metadata.additionalContext.ackTarget ?? '')).toEqual({ key });
    // The channel rides inside the target: the button's command has room for one variable.
    expect(decodeChatPress(body.metadata.additionalContext.ackTarget ?? '')).toEqual({
      target: { key },
      channel: 'oncall',
    });
    expect(decodeChatTarget(body.metadata.additionalContext.silenceTarget ?? '')).toEqual({
      matchers: { rule: 'agent-ringing', 'labels.agent_name': RAJESH },
    });
  });

  it('offers no button on a message that tells nothing firing (a resolution, an ack)', () => {
    for (const [index, message] of messages.entries()) {
      const firing = message.kind !== 'ack' && message.alerts.some((a) => a.status === 'firing');
      const context = bodies[index]?.metadata.additionalContext ?? {};
      expect(context.ackTarget !== undefined).toBe(firing);
    }
  });

  it('is the https and http body of the publish to a chat channel, the message JSON the default', () => {
    const [message] = messages;
    const [body] = bodies;
    if (message === undefined || body === undefined) throw new Error('no message');
    const published = snsBodies(message, JSON.stringify(body));
    expect(JSON.parse(published.https ?? '')).toEqual(body);
    expect(published.http).toBe(published.https);
    expect(JSON.parse(published.default).id).toBe(message.id);
    expect(snsBodies(message)).not.toHaveProperty('https');
  });
});

describe('Function: decodeChatTarget', () => {
  it('refuses what is not a target', () => {
    expect(decodeChatTarget('not base64 json')).toBeUndefined();
    expect(decodeChatTarget(Buffer.from('{"other":1}').toString('base64url'))).toBeUndefined();
    expect(decodeChatTarget(Buffer.from('{"matchers":{}}').toString('base64url'))).toBeUndefined();
  });
});
