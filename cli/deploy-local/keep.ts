import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { STACK_NAME } from './cdk';
import type { DeployedHandler } from './handlers';
import { scheduledEvent } from './handlers';
import type { Listeners } from './listen';
import { type MotoServer, REGION } from './moto';
import type { DeployedFunction, DeployedStack } from './stack';
import type { StreamMapping } from './stream';
import { describeDelivery } from './summary';

const MINUTE_MS = 60_000;
/** How often the kept rehearsal looks at what is due and what has arrived. */
const TICK_MS = 1_000;

/** `rate(5 minutes)` -> 300000; other expressions (cron) are not rehearsed. */
export function rateMs(expression: string | undefined): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression ?? '');
  if (!match) return undefined;
  const unit = match[2]?.startsWith('minute')
    ? MINUTE_MS
    : match[2]?.startsWith('hour')
      ? 60 * MINUTE_MS
      : 24 * 60 * MINUTE_MS;
  return Number(match[1]) * unit;
}

/** What a kept rehearsal runs: each function with what invokes it on AWS. */
export interface KeptFunction {
  readonly handler: DeployedHandler;
  /** Its EventBridge schedule's period, if it has one. */
  readonly everyMs: number | undefined;
  /** The SQS queue that invokes it (the live calls poller's sample queue), as moto names it. */
  readonly queueUrl: string | undefined;
}

export interface KeepOptions {
  readonly stack: DeployedStack;
  readonly functions: readonly KeptFunction[];
  /** The table's stream, delivered to the notifier after each poller run (as its mapping). */
  readonly mappings: readonly {
    readonly fn: DeployedFunction;
    readonly handler: DeployedHandler;
    readonly stream: StreamMapping;
  }[];
  readonly listeners: Listeners;
  readonly stdout: (text: string) => void;
  /** The wall clock. */
  readonly now?: () => number;
}

/** The lines a user pastes in another shell to work on the kept stack. */
export function practiceLines(moto: MotoServer, commands: readonly string[]): string {
  const env = moto.environment;
  const lines = [
    '',
    `The stack stays deployed on moto until Ctrl-C. From another shell in this folder:`,
    '',
    `  export AWS_ENDPOINT_URL=${env.AWS_ENDPOINT_URL} AWS_REGION=${REGION} \\`,
    `    AWS_ACCESS_KEY_ID=${env.AWS_ACCESS_KEY_ID} AWS_SECRET_ACCESS_KEY=${env.AWS_SECRET_ACCESS_KEY}`,
    '  unset AWS_PROFILE AWS_SESSION_TOKEN',
    `  STACK=${STACK_NAME}`,
    '  npx telealert alerts --stack "$STACK"',
    '  npx telealert silence add --match rule=too-many-ringing --for 1h --comment "practice" --stack "$STACK"',
    '  npx telealert silence list --stack "$STACK"',
    '  npx telealert ack --rule too-many-ringing --stack "$STACK"',
  ];
  if (commands.includes('oncall')) lines.push('  npx telealert oncall --stack "$STACK"');
  lines.push(
    '',
    'docs/operations.md is the runbook to practise: its `npx telealert ... --stack` commands work here as on AWS.',
    'Each function runs on its schedule; every SMS and email is shown as it is sent.',
    '',
  );
  return `${lines.join('\n')}\n`;
}

function sqsEvent(message: Message, queueUrl: string): SQSEvent {
  const name = queueUrl.split('/').pop() ?? 'queue';
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
        eventSourceARN: `arn:aws:sqs:${REGION}:123456789012:${name}`,
        awsRegion: REGION,
      },
    ],
  };
}

/**
 * One short line for a run's summary, or nothing for a run that changed nothing (a kept stack
 * runs every minute: only what happened is worth a line).
 */
export function describeRun(label: string, summary: unknown): string | undefined {
  if (typeof summary !== 'object' || summary === null) return `${label}: ${String(summary)}`;
  const s = summary as Record<string, unknown>;
  const count = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : 0);
  if ('source' in s) {
    const failed = count('failures') > 0 ? `, poll FAILED (${count('failures')})` : '';
    return `${label} ${String(s.source)}: ${count('records')} records, ${count('owedLeft')} events committed for the notifier${failed}`;
  }
  const published = Array.isArray(s.published) ? s.published.length : 0;
  const unpublished = Array.isArray(s.unpublished) ? s.unpublished.length : 0;
  if (count('taken') === 0 && published === 0 && unpublished === 0) return undefined;
  const owed = unpublished > 0 ? `, ${unpublished} left owed` : '';
  return `${label} notifier: ${count('taken')} events taken, ${published} messages published${owed}`;
}

function clockTime(atMs: number): string {
  return new Date(atMs).toISOString().slice(11, 19);
}

/**
 * Runs the deployed functions as AWS would, until the process is stopped: each on its schedule,
 * the poller's queued samples when they come due, the notifier from the table's stream after each
 * poller run, and prints each SMS and email as a subscriber receives it. Never returns; Ctrl-C
 * ends the process (main.ts), which tears everything down.
 */
export async function keepRunning(options: KeepOptions): Promise<never> {
  const { stdout, listeners, stack } = options;
  const now = options.now ?? Date.now;
  const sqs = new SQSClient({});
  const next = new Map<KeptFunction, number>();
  const start = now();
  for (const fn of options.functions) if (fn.everyMs !== undefined) next.set(fn, start);

  const say = (line: string | undefined) => {
    if (line !== undefined) stdout(`${clockTime(now())}  ${line}\n`);
  };
  const run = async (label: string, fn: DeployedHandler, event: unknown) => {
    try {
      say(describeRun(label, await fn.invoke(event)));
    } catch (error) {
      say(`${label} ${fn.fn.name} failed: ${(error as Error).message}`);
    }
    for (const mapping of options.mappings) {
      const rounds = await mapping.stream.deliver((e) => mapping.handler.invoke(e));
      for (const round of rounds) say(describeRun('  stream ->', round));
    }
  };

  for (;;) {
    for (const [fn, dueMs] of next) {
      if (now() < dueMs) continue;
      next.set(fn, dueMs + (fn.everyMs ?? MINUTE_MS));
      await run('schedule', fn.handler, scheduledEvent(fn.handler.fn, now()));
    }
    for (const fn of options.functions) {
      if (fn.queueUrl === undefined) continue;
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: fn.queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 0,
        }),
      );
      for (const message of Messages) {
        await run('sample ', fn.handler, sqsEvent(message, fn.queueUrl));
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: fn.queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    }
    const lines: string[] = [];
    for (const listener of listeners.all) {
      lines.push(...describeDelivery(listener, await listeners.drain(listener), stack));
    }
    for (const line of lines) say(line.trimStart());
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
}
