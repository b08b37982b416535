import type { Message } from '@aws-sdk/client-sqs';
import { chatLines } from './chat';
import type { Listener } from './listen';
import type { DeployedAlarm, DeployedFunction, DeployedStack, DeployedTopic } from './stack';

const COMPARISON: Readonly<Record<string, string>> = {
  GreaterThanOrEqualToThreshold: '>=',
  GreaterThanThreshold: '>',
  LessThanThreshold: '<',
  LessThanOrEqualToThreshold: '<=',
};

/** The last part of a physical name or ARN, which is what a person recognises. */
const short = (id: string): string => id.split(/[:/]/).pop() ?? id;

/**
 * What an event source mapping reads from: a queue by its name, a table's stream as
 * `the stream of <table>` (its ARN ends in the stream's label, a timestamp).
 */
function eventSourceName(arn: string): string {
  const stream = /:table\/([^/]+)\/stream\//.exec(arn);
  return stream ? `the stream of table ${stream[1]}` : short(arn);
}

/** A topic's name for people: its channel from the stack's outputs, else its own name. */
function topicLabel(stack: DeployedStack, arn: string): string {
  for (const [key, value] of Object.entries(stack.outputs)) {
    if (value !== arn) continue;
    if (key.startsWith('AlarmTopicArn')) return `${key.slice('AlarmTopicArn'.length)} (alarms)`;
    if (key.startsWith('TopicArn')) return key.slice('TopicArn'.length);
  }
  return short(arn);
}

function functionLines(fn: DeployedFunction): string[] {
  const facts = [
    fn.runtime,
    fn.architectures.join('/'),
    fn.memoryMb === undefined ? undefined : `${fn.memoryMb} MB`,
    fn.timeoutS === undefined ? undefined : `timeout ${fn.timeoutS} s`,
    fn.reservedConcurrency === undefined
      ? undefined
      : `reserved concurrency ${fn.reservedConcurrency}`,
  ].filter((fact) => fact !== undefined);
  const lines = [`  ${fn.name}`, `    ${facts.join(', ')}`];
  for (const schedule of fn.schedules) {
    lines.push(
      `    schedule: ${schedule.expression ?? '(event pattern)'} (${schedule.state ?? '?'})`,
    );
  }
  for (const source of fn.eventSources) {
    const facts = [
      `batch ${source.batchSize ?? '?'}`,
      source.startingPosition ? `from ${source.startingPosition}` : undefined,
      source.filters
        ? `filter ${source.filters.map((f) => JSON.stringify(f)).join(' or ')}`
        : undefined,
    ].filter((fact) => fact !== undefined);
    lines.push(`    invoked by: ${eventSourceName(source.arn)} (${facts.join(', ')})`);
  }
  const invoke = fn.eventInvokeConfig;
  if (invoke) {
    lines.push(
      `    async invocations: ${invoke.maximumRetryAttempts ?? '?'} retries, ` +
        `dropped after ${invoke.maximumEventAgeInSeconds ?? '?'} s` +
        (invoke.onFailure ? `, failures to ${short(invoke.onFailure)}` : ''),
    );
  }
  // Only the notifier is given the topics: a poller commits its events for it.
  const topics = fn.environment.TELEALERT_TOPICS;
  if (topics) {
    const channels = Object.keys(JSON.parse(topics) as Record<string, string>);
    lines.push(`    publishes to: ${channels.join(', ')}`);
  } else {
    lines.push('    publishes nothing: commits its events to the table for the notifier');
  }
  return lines;
}

function topicLines(topic: DeployedTopic, stack: DeployedStack): string[] {
  const lines = [
    `  ${topicLabel(stack, topic.arn)}: ${short(topic.arn)}` +
      (topic.kmsMasterKeyId ? ' (KMS-encrypted)' : ''),
  ];
  const subscriptions = topic.subscriptions.filter(
    (s) => s.protocol !== 'sqs' || !s.rawMessageDelivery,
  );
  if (subscriptions.length === 0) lines.push('    no subscriptions');
  for (const s of subscriptions) {
    const filter =
      s.filterPolicy === undefined ? 'no filter' : `filter ${JSON.stringify(s.filterPolicy)}`;
    const member = onCallName(s.filterPolicy);
    const whose = member === undefined ? '' : `  (${member}'s: only while on call)`;
    lines.push(`    ${s.protocol} ${s.endpoint}  ${filter}${whose}`);
  }
  return lines;
}

/** The rotation member a subscription reaches: its filter's `oncall` (contract section 8). */
function onCallName(filterPolicy: unknown): string | undefined {
  if (typeof filterPolicy !== 'object' || filterPolicy === null) return undefined;
  const oncall = (filterPolicy as { oncall?: unknown }).oncall;
  return Array.isArray(oncall) && typeof oncall[0] === 'string' ? oncall[0] : undefined;
}

function alarmLine(alarm: DeployedAlarm, stack: DeployedStack): string {
  const dimensions = Object.entries(alarm.dimensions)
    .map(([name, value]) => `${name}=${short(value)}`)
    .join(', ');
  const metric = `${alarm.namespace}/${alarm.metricName}${dimensions ? ` (${dimensions})` : ''}`;
  const condition =
    `${alarm.statistic ?? ''} ${COMPARISON[alarm.comparison ?? ''] ?? alarm.comparison} ` +
    `${alarm.threshold} for ${alarm.evaluationPeriods} x ${alarm.periodS} s`;
  const to = [...new Set(alarm.alarmActions.map((arn) => topicLabel(stack, arn)))].join(', ');
  return `  ${short(alarm.name)}: ${metric} ${condition} -> ${to || 'no action'}`;
}

/** What the deploy created, grouped for people: functions, topics, alarms, tables, the rest. */
export function describeStack(stack: DeployedStack): string {
  const lines = [`Stack ${stack.name} (${stack.status}), ${stack.resources.length} resources`];
  lines.push('', 'Outputs');
  for (const [key, value] of Object.entries(stack.outputs)) lines.push(`  ${key} = ${value}`);
  lines.push('', 'Functions');
  for (const fn of stack.functions) lines.push(...functionLines(fn));
  lines.push('', 'Topics and subscriptions');
  for (const topic of stack.topics) lines.push(...topicLines(topic, stack));
  lines.push('', 'Alarms');
  if (stack.alarms.length === 0) lines.push('  none');
  for (const alarm of stack.alarms) lines.push(alarmLine(alarm, stack));
  lines.push('', 'Tables');
  for (const table of stack.tables) {
    lines.push(
      `  ${table.name}: keys ${table.keys.join(', ')}; ${table.billingMode ?? '?'}; ` +
        `TTL ${table.ttl?.attribute ?? '-'} ${table.ttl?.status ?? 'DISABLED'}; ` +
        `point-in-time recovery ${table.pointInTimeRecovery ?? 'DISABLED'}; encryption ${table.sse ?? 'DISABLED'}; ` +
        `stream ${table.streamViewType ?? 'none'}`,
    );
  }
  if (stack.queues.length > 0) lines.push('', 'Queues');
  for (const queue of stack.queues) {
    const a = queue.attributes;
    const facts = [
      a.SqsManagedSseEnabled === 'true' ? 'SSE-SQS' : undefined,
      a.KmsMasterKeyId ? 'KMS' : undefined,
      a.VisibilityTimeout ? `visibility ${a.VisibilityTimeout} s` : undefined,
      a.RedrivePolicy
        ? `redrive to ${short(JSON.parse(a.RedrivePolicy).deadLetterTargetArn ?? '')}`
        : undefined,
    ].filter((fact) => fact !== undefined);
    lines.push(`  ${short(queue.url)}${facts.length > 0 ? `: ${facts.join(', ')}` : ''}`);
  }
  lines.push(...chatLines(stack, topicLabel));
  const described = new Set([
    'AWS::Lambda::Function',
    'AWS::SNS::Topic',
    'AWS::SNS::Subscription',
    'AWS::CloudWatch::Alarm',
    'AWS::DynamoDB::Table',
    'AWS::SQS::Queue',
    'AWS::Chatbot::SlackChannelConfiguration',
    'AWS::Chatbot::MicrosoftTeamsChannelConfiguration',
  ]);
  const others = new Map<string, number>();
  for (const r of stack.resources) {
    if (!described.has(r.type)) others.set(r.type, (others.get(r.type) ?? 0) + 1);
  }
  lines.push('', 'Other resources');
  for (const [type, count] of [...others].sort()) lines.push(`  ${type} x ${count}`);
  if (stack.notCreated.length > 0) {
    lines.push('', 'In the template but not created by the simulator');
    for (const r of stack.notCreated) lines.push(`  ${r.type} (${r.logicalId})`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * One line per message a subscriber would have been sent: its SMS text to an SMS number, its
 * subject to an email address (the `sqs` body carries both; see docs/messages.md); a rotation
 * member's subscription is named for them (it only hears what reaches them on call).
 */
export function describeDelivery(
  listener: Listener,
  messages: readonly Message[],
  stack: DeployedStack,
): string[] {
  const member = onCallName(listener.subscription.filterPolicy);
  const to =
    `${topicLabel(stack, listener.topic.arn)} ${listener.subscription.protocol} ${listener.subscription.endpoint}` +
    (member === undefined ? '' : ` (${member}, on call)`);
  return messages.map((message) => {
    const body = message.Body ?? '';
    let shown = body;
    try {
      const parsed = JSON.parse(body) as { sms?: unknown; subject?: unknown; Subject?: unknown };
      const text =
        listener.subscription.protocol === 'sms' ? parsed.sms : (parsed.subject ?? parsed.Subject);
      if (typeof text === 'string') shown = text;
    } catch {
      // Not JSON (a plain message published by hand): shown as it is.
    }
    return `    -> ${to}: ${shown.replace(/\s+/g, ' ').slice(0, 200)}`;
  });
}
