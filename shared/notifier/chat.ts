import { createHash } from 'node:crypto';
import type { Config, Severity } from '../types/config';
import type { Message, MessageAlert } from './types';

/*
 * The chat body of a message (contract section 9): a custom notification of Amazon Q Developer
 * in chat applications (formerly AWS Chatbot), which posts it to the Slack or Teams channels
 * subscribed to the channel's topic. The service takes it from the topic as an HTTPS
 * subscriber, so the publish carries it as the `https` body (and `http`, what a loopback test
 * subscriber gets). Same facts as the email: the description is the email's text.
 */

/**
 * Bounds the body keeps (docs/chat.md says why each): Slack's own block limits (a header 150
 * characters, a section 3,000), which the service renders into, and a whole body that leaves
 * room beside the message JSON in SNS's 256 KiB publish (`bodies.ts`).
 */
export const CHAT_LIMITS = {
  title: 150,
  description: 3_000,
  nextSteps: 3,
  nextStep: 500,
  keywords: 5,
  keyword: 50,
  summary: 150,
  threadId: 100,
  /**
   * A button's variable value stays under this: the value is put into the button's command in
   * place of its variable, and a long alert key should not make the press fail.
   */
  target: 1_000,
  /** The body as published, JSON inside the publish's JSON (UTF-8 bytes). */
  bytes: 12_000,
} as const;

/** The custom-notification fields telealert fills. */
export interface ChatBody {
  readonly version: '1.0';
  readonly source: 'custom';
  readonly id: string;
  readonly content: {
    readonly textType: 'client-markdown';
    readonly title: string;
    readonly description: string;
    readonly nextSteps: readonly string[];
    readonly keywords: readonly string[];
  };
  readonly metadata: {
    readonly threadId: string;
    readonly summary: string;
    readonly eventType: 'telealert';
    /** Read by the Acknowledge and Silence 1h buttons (`infra/chat.ts`). */
    readonly additionalContext: Readonly<Record<string, string>>;
  };
}

/** What a button asks the chat-action function to do, base64url JSON in `additionalContext`. */
export type ChatTarget =
  | { readonly key: string }
  | { readonly rule: string }
  | { readonly matchers: Readonly<Record<string, string>> };

/**
 * What a button carries back: its target and the telealert channel the message went to. The
 * channel rides inside the target, not as a variable of its own: a custom action's command is
 * at most 100 characters (docs/chat.md), and each variable name in it takes room.
 */
export interface ChatPress {
  readonly target: ChatTarget;
  readonly channel?: string;
}

export interface ChatOptions {
  /** The channels' `group.by` (a thread is a group) and the rules' sources. */
  readonly config: Config;
  /** The deployed stack, for the commands to paste (`--stack`). Absent: local. */
  readonly stack?: string;
}

const SEVERITY_MARK: Readonly<Record<Severity, string>> = {
  critical: '🔴',
  warning: '🟠',
  info: '🔵',
};

/** Cut to at most `max` UTF-16 units, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The thread of the message's group on its channel: one incident, one thread. */
export function chatThreadId(message: Message, config: Config): string {
  const first = message.alerts[0];
  // A hand-off is about the channel's shift, not one incident: the channel's hand-offs share
  // a thread of their own.
  if (first === undefined || message.kind === 'handoff')
    return `${message.channel}-${message.kind}`;
  const by = config.channels[message.channel]?.group.by ?? ['rule'];
  const source =
    config.rules.find((rule) => rule.name === first.rule)?.source ?? first.labels.source ?? '';
  const values = by.map((name) => {
    if (name === 'rule') return first.rule;
    if (name === 'severity') return first.severity;
    if (name === 'source') return source;
    return first.labels[name] ?? '';
  });
  const digest = createHash('sha256').update(JSON.stringify(values)).digest('hex').slice(0, 16);
  return cut(`${message.channel}-${digest}`, CHAT_LIMITS.threadId);
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function encode(target: ChatTarget, channel: string): string {
  return Buffer.from(JSON.stringify({ ...target, channel }), 'utf8').toString('base64url');
}

function readTarget(record: Record<string, unknown>): ChatTarget | undefined {
  if (typeof record.key === 'string') return { key: record.key };
  if (typeof record.rule === 'string') return { rule: record.rule };
  const matchers = record.matchers;
  if (typeof matchers === 'object' && matchers !== null) {
    const entries = Object.entries(matchers);
    if (entries.length > 0 && entries.every(([, v]) => typeof v === 'string')) {
      return { matchers: Object.fromEntries(entries) as Record<string, string> };
    }
  }
  return undefined;
}

/** Reads what a button carries back; undefined when it is not a target. */
export function decodeChatPress(text: string): ChatPress | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    const target = readTarget(record);
    if (target === undefined) return undefined;
    return typeof record.channel === 'string' ? { target, channel: record.channel } : { target };
  } catch {
    // Not base64url JSON: not ours.
    return undefined;
  }
}

/** The target alone of what a button carries back. */
export function decodeChatTarget(text: string): ChatTarget | undefined {
  return decodeChatPress(text)?.target;
}

/** What the buttons and commands act on: the firing alerts of one rule the message tells. */
function targets(
  firing: readonly MessageAlert[],
): { ack: ChatTarget; silence: Record<string, string> } | undefined {
  const rules = new Set(firing.map((alert) => alert.rule));
  const [only] = firing;
  if (rules.size !== 1 || only === undefined) return undefined;
  if (firing.length > 1) return { ack: { rule: only.rule }, silence: { rule: only.rule } };
  const silence: Record<string, string> = { rule: only.rule };
  for (const [name, value] of Object.entries(only.labels)) silence[`labels.${name}`] = value;
  return { ack: { key: only.key }, silence };
}

function nextSteps(
  message: Message,
  firing: readonly MessageAlert[],
  stack: string | undefined,
  aims: ReturnType<typeof targets>,
): string[] {
  const where = stack === undefined ? '' : ` --stack ${quote(stack)}`;
  const steps: string[] = [];
  if (aims !== undefined) {
    const { ack, silence } = aims;
    const what = 'key' in ack ? quote(ack.key) : `--rule ${quote((ack as { rule: string }).rule)}`;
    steps.push(`Acknowledge: \`telealert ack ${what}${where} --by NAME\``);
    const matches = Object.entries(silence)
      .map(([name, value]) => ` --match ${quote(`${name}=${value}`)}`)
      .join('');
    steps.push(
      `Silence 1h: \`telealert silence add${matches} --for 1h --comment ${quote(`from chat: ${message.channel}`)}${where} --by NAME\``,
    );
  } else if (firing.length > 0) {
    steps.push(`Acknowledge a rule's alerts: \`telealert ack --rule RULE${where} --by NAME\``);
  }
  steps.push(`Firing alerts: \`telealert alerts${where}\``);
  return steps
    .filter((step) => step.length <= CHAT_LIMITS.nextStep)
    .slice(0, CHAT_LIMITS.nextSteps);
}

function titleMark(message: Message, firing: readonly MessageAlert[]): string {
  if (message.kind === 'ack') return '👍';
  if (message.kind === 'escalation') return '⏫';
  if (message.kind === 'handoff') return '📟';
  const worst =
    firing.find((a) => a.severity === 'critical') ??
    firing.find((a) => a.severity === 'warning') ??
    firing[0];
  return worst === undefined ? '✅' : SEVERITY_MARK[worst.severity];
}

function describe(text: string, max: number): string {
  // A code block: the email's aligned columns stay aligned, and nothing in a label value is
  // read as markup (three backticks in a value would end the block: kept apart).
  const body = text.replaceAll('```', '`\u200b`\u200b`');
  return `\`\`\`\n${cut(body, max - 8)}\n\`\`\``;
}

/**
 * The chat body of a message: its subject as the title, the email's text as the description,
 * the exact commands to paste, the group as the thread, and the buttons' targets.
 */
export function chatBody(message: Message, options: ChatOptions): ChatBody {
  const firing =
    message.kind === 'ack' ? [] : message.alerts.filter((alert) => alert.status === 'firing');
  const aims = targets(firing);
  const context: Record<string, string> = { channel: message.channel, kind: message.kind };
  if (aims !== undefined) {
    const ack = encode(aims.ack, message.channel);
    const silence = encode({ matchers: aims.silence }, message.channel);
    if (ack.length <= CHAT_LIMITS.target) context.ackTarget = ack;
    if (silence.length <= CHAT_LIMITS.target) context.silenceTarget = silence;
  }
  const rules = [...new Set(message.alerts.map((alert) => alert.rule))];
  const keywords = [message.kind, ...new Set(message.alerts.map((a) => a.severity)), ...rules]
    .map((word) => cut(word, CHAT_LIMITS.keyword))
    .slice(0, CHAT_LIMITS.keywords);
  const body = (descriptionMax: number): ChatBody => ({
    version: '1.0',
    source: 'custom',
    id: message.id,
    content: {
      textType: 'client-markdown',
      title: cut(`${titleMark(message, firing)} ${message.subject}`, CHAT_LIMITS.title),
      description: describe(message.text, descriptionMax),
      nextSteps: nextSteps(message, firing, options.stack, aims),
      keywords,
    },
    metadata: {
      threadId: chatThreadId(message, options.config),
      summary: cut(message.subject, CHAT_LIMITS.summary),
      eventType: 'telealert',
      additionalContext: context,
    },
  });
  let max: number = CHAT_LIMITS.description;
  let built = body(max);
  while (chatBytes(built) > CHAT_LIMITS.bytes && max > 100) {
    max = Math.floor(max * 0.8);
    built = body(max);
  }
  return built;
}

/** Bytes the body takes inside a publish's JSON `Message` (a string, escaped). */
export function chatBytes(body: ChatBody): number {
  return Buffer.byteLength(JSON.stringify(JSON.stringify(body)), 'utf8');
}
