/**
 * The quantities of the bill that are measured, not assumed: the deployed handlers run in this
 * process against the simulator and moto with their own logger and metrics (as Lambda runs
 * them: Powertools JSON lines and EMF documents on stdout), so every custom metric they publish
 * and every byte they log is read from what they print; the synthesized template gives the
 * alarms, dashboards, log widgets and keys; moto's table gives the stored bytes.
 */

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { App } from 'aws-cdk-lib';
import type { Context } from 'aws-lambda';
import { sqsSampleQueue } from '../functions/adapters/sqs-samples';
import { createPollerHandler } from '../functions/handler';
import { createNotifierHandler } from '../functions/notifier-handler';
import { TelealertStack } from '../infra/stack';
import { writeEmbeddedConfig } from '../shared/config/embedded';
import { validateConfig } from '../shared/config/validate';
import { emfSeriesOf } from '../shared/observability/emf';
import { METRIC_INVENTORY, PUBLISHED, seriesKey } from '../shared/observability/metrics';
import { laterSamples } from '../shared/runner/samples';
import { DAY_MS } from '../shared/time/offsets';
import type { Config, PersonConfig } from '../shared/types/config';
import { type Loopback, sampleEvent } from './aws';
import type { MonthlyUsage } from './bill';
import type { RunProfile } from './cost';
import type { ChannelFigure } from './messages';
import { round } from './stats';

/**
 * What Lambda adds to a function's log per invocation: its START, END and REPORT lines (text
 * format, as the stack leaves it), about 330 bytes, and CloudWatch Logs' 26 bytes of
 * ingestion overhead per event.
 */
export const PLATFORM_LOG_BYTES = 330;
export const PLATFORM_LOG_EVENTS = 3;
export const LOG_EVENT_OVERHEAD_BYTES = 26;

/** What one invocation of a function writes to its log, on average over the measured runs. */
export interface EmittedFigure {
  readonly name: 'live_calls' | 'payments' | 'notifier';
  readonly invocations: number;
  readonly bytesPerInvocation: number;
  readonly eventsPerInvocation: number;
}

export interface Emitted {
  readonly functions: readonly EmittedFigure[];
  /** Every custom metric series the runs published. */
  readonly series: readonly string[];
}

function lambdaContext(): Context {
  return {
    awsRequestId: 'bench-bill',
    functionName: 'bench-bill',
    getRemainingTimeInMillis: () => 55_000,
  } as unknown as Context;
}

/** Runs `invoke` with stdout and stderr captured: what it printed, and its result. */
async function printed<T>(invoke: () => Promise<T>): Promise<{ text: string; result: T }> {
  const chunks: string[] = [];
  const writes = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = ((chunk: unknown) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  try {
    const result = await invoke();
    return { text: chunks.join(''), result };
  } finally {
    for (const restore of writes) restore();
  }
}

/**
 * The deployed handlers of both pollers (live calls with its sample queue) and the notifier,
 * with Powertools' logger at its default level and metrics on, as the stack runs them: a
 * first run to set each container up, then `runs` runs whose output is measured.
 */
export async function measureEmitted(
  loopback: Loopback,
  directory: string,
  sampleQueueUrl: string,
  runs: number,
): Promise<Emitted> {
  const file = join(directory, 'bill.json');
  const config: Config = validateConfig(loopback.rules(), 'bill.json');
  writeEmbeddedConfig(file, config);
  const env = {
    ...process.env,
    TELEALERT_CONFIG_FILE: file,
    TELEALERT_TABLE: loopback.stack.tableName,
    // The notifier's topics (the pollers, given the same environment, read none).
    TELEALERT_TOPICS: JSON.stringify(loopback.stack.topics),
  };
  // The bench switches both off for its other figures; Powertools reads them when a handler
  // builds its logger and metrics, so they are on while these handlers are made and run.
  const saved = {
    metrics: process.env.POWERTOOLS_METRICS_DISABLED,
    level: process.env.POWERTOOLS_LOG_LEVEL,
  };
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  delete process.env.POWERTOOLS_LOG_LEVEL;
  try {
    const live = createPollerHandler('live_calls', {
      sleep: async () => {},
      sampleQueue: sqsSampleQueue,
      env: { ...env, TELEALERT_SAMPLE_QUEUE_URL: sampleQueueUrl },
    }) as unknown as (event: object, context: Context) => Promise<unknown>;
    const payments = createPollerHandler('payments', {
      sleep: async () => {},
      env,
    }) as unknown as (event: object, context: Context) => Promise<unknown>;
    const notifier = createNotifierHandler({ env }) as unknown as (
      event: object,
      context: Context,
    ) => Promise<unknown>;
    const plans = {
      live_calls: async (id: string) => {
        const startMs = Date.now();
        const events: object[] = [
          { id },
          ...laterSamples(config, 'live_calls', startMs).map((later) =>
            sampleEvent(later.sample, Date.now(), 'bill'),
          ),
        ];
        for (const event of events) await live(event, lambdaContext());
        return events.length;
      },
      payments: async (id: string) => {
        await payments({ id }, lambdaContext());
        return 1;
      },
      notifier: async (id: string) => {
        await notifier({ id }, lambdaContext());
        return 1;
      },
    };
    const series = new Set<string>();
    const functions: EmittedFigure[] = [];
    for (const [name, run] of Object.entries(plans) as [
      EmittedFigure['name'],
      typeof plans.payments,
    ][]) {
      await printed(() => run(`bill-${name}-cold`));
      let bytes = 0;
      let events = 0;
      let invocations = 0;
      for (let index = 0; index < runs; index += 1) {
        const { text, result } = await printed(() => run(`bill-${name}-${index}`));
        invocations += result;
        bytes += Buffer.byteLength(text);
        events += text.split('\n').filter((line) => line.trim() !== '').length;
        for (const seen of emfSeriesOf(text)) series.add(seen.key);
      }
      functions.push({
        name,
        invocations: invocations / runs,
        bytesPerInvocation: bytes / invocations,
        eventsPerInvocation: events / invocations,
      });
    }
    return { functions, series: [...series].sort() };
  } finally {
    if (saved.metrics === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
    else process.env.POWERTOOLS_METRICS_DISABLED = saved.metrics;
    if (saved.level === undefined) delete process.env.POWERTOOLS_LOG_LEVEL;
    else process.env.POWERTOOLS_LOG_LEVEL = saved.level;
  }
}

/**
 * The series seen, by how they are billed: each known one a whole month (it was published in
 * a quiet run, so it is every run); the inventory's `when it happens` series not seen (a
 * failed poll) cost nothing in this month; unknown ones are counted and fail a budget.
 */
export function classifySeries(seen: readonly string[]) {
  const known = new Set(METRIC_INVENTORY.map((s) => seriesKey(s.name, s.dimensions)));
  return {
    everyRun: seen.filter((key) => known.has(key)),
    whenItHappens: METRIC_INVENTORY.filter((s) => s.published === PUBLISHED.whenItHappens)
      .map((s) => seriesKey(s.name, s.dimensions))
      .filter((key) => !seen.includes(key)),
    unknown: seen.filter((key) => !known.has(key)),
  };
}

/** What the synthesized template creates that the bill prices. */
export interface TemplateCounts {
  readonly alarms: number;
  /** Metrics the alarms read (a metric math alarm is billed per metric). */
  readonly alarmMetrics: number;
  readonly dashboards: number;
  readonly logWidgets: number;
  readonly kmsKeys: number;
  readonly scheduleRules: number;
}

/**
 * Counts what the stack for `configFile` creates: synthesized into `outdir` as `cdk synth`
 * would, without bundling the functions (the shape alone).
 */
export function templateCounts(configFile: string, outdir: string): TemplateCounts {
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  new TelealertStack(app, 'Telealert', { alerting: { configFile: resolve(configFile) } });
  const assembly = app.synth();
  const template = JSON.parse(
    readFileSync(join(assembly.directory, 'Telealert.template.json'), 'utf8'),
  ) as {
    Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  };
  const resources = Object.values(template.Resources);
  const ofType = (type: string) => resources.filter((r) => r.Type === type);
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const alarmMetrics = alarms.reduce((total, alarm) => {
    const metrics = alarm.Properties?.Metrics;
    return (
      total +
      (Array.isArray(metrics)
        ? metrics.filter((m) => (m as { MetricStat?: unknown }).MetricStat !== undefined).length
        : 1)
    );
  }, 0);
  const dashboards = ofType('AWS::CloudWatch::Dashboard');
  const body = JSON.stringify(dashboards.map((d) => d.Properties?.DashboardBody));
  return {
    alarms: alarms.length,
    alarmMetrics,
    dashboards: dashboards.length,
    logWidgets: body.split('\\"type\\":\\"log\\"').length - 1,
    kmsKeys: ofType('AWS::KMS::Key').length,
    scheduleRules: ofType('AWS::Events::Rule').length,
  };
}

/**
 * The bytes the state table stores, as DynamoDB bills them: each attribute's name and value,
 * and 100 bytes of overhead an item.
 */
export async function tableBytes(tableName: string): Promise<number> {
  const client = new DynamoDBClient({});
  try {
    let bytes = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey: start as never }),
      );
      for (const item of page.Items ?? []) {
        bytes += 100;
        for (const [name, value] of Object.entries(item)) {
          bytes += Buffer.byteLength(name);
          if (value.B) bytes += value.B.byteLength;
          else bytes += Buffer.byteLength(JSON.stringify(Object.values(value)[0] ?? ''));
        }
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return bytes;
  } finally {
    client.destroy();
  }
}

/**
 * A month of pages: the busy evening every day of a 30-day month, per channel's subscribers.
 * A rotation's channel also reaches the person on call (their SMS and email, as the members
 * have them) with each page, and the incoming person with each handoff: as many a day as the
 * rotation's shifts (the evening's own handoffs, its first step telling who is on call, are
 * left out for them). The fixed lists hear the pages, not the handoffs.
 */
export function monthOfPages(config: Config, evening: readonly ChannelFigure[]) {
  let smsParts = 0;
  let emails = 0;
  const perDay: string[] = [];
  for (const figure of evening) {
    const channel = config.channels[figure.channel];
    if (!channel) continue;
    const pages = figure.messages - figure.handoffs;
    // Each message fits one SMS segment (bench/messages.ts checks `withinLimits`).
    smsParts += 30 * pages * channel.sms.length;
    emails += 30 * pages * channel.email.length;
    const rotation =
      channel.rotation === undefined ? undefined : config.rotations?.[channel.rotation];
    if (rotation === undefined) {
      perDay.push(`${figure.messages} to ${figure.channel}`);
      continue;
    }
    const handoffs = DAY_MS / rotation.shiftMs;
    const share = (has: (person: PersonConfig | undefined) => boolean) =>
      rotation.members.filter((name) => has(config.people?.[name])).length /
      rotation.members.length;
    const person = 30 * (pages + handoffs);
    smsParts += person * share((p) => p?.sms !== undefined);
    emails += person * share((p) => p?.email !== undefined);
    perDay.push(
      `${pages} to ${figure.channel} and its person on call, ${round(handoffs, 2)} handoffs`,
    );
  }
  return {
    description: `the busy evening every day for 30 days: ${perDay.join(', ')} a day`,
    smsParts: Math.round(smsParts),
    emails: Math.round(emails),
  };
}

const MONTH_MS = 30 * 86_400_000;
const MONTH_MINUTES = MONTH_MS / 60_000;
/** The SSM token cache of a poller container (functions/adapters/ssm-token.ts). */
const TOKEN_CACHE_MINUTES = 15;
/**
 * DynamoDB asks KMS to decrypt a table's key for a caller at most every 5 minutes while it is
 * in use (AWS managed key: no monthly fee, requests billed); three functions call it.
 */
const TABLE_KEY_MINUTES = 5;
/** SNS asks KMS for a data key to encrypt a message for an encrypted topic, and to decrypt it to deliver. */
const KMS_PER_PUBLISH = 2;

/** One function's month as the bench measured a run of it (`bench/cost.ts` `RunProfile`). */
export interface FunctionMonth {
  readonly name: EmittedFigure['name'];
  readonly everyMs: number;
  readonly run: RunProfile;
}

/**
 * The month of `usage` the bill prices: each function's runs (the same profiles the cost
 * table prices), what its runs print, the template's alarms and dashboard, the table's bytes.
 */
export function monthlyUsage(input: {
  readonly months: readonly FunctionMonth[];
  readonly memoryMb: number;
  readonly emitted: Emitted;
  readonly template: TemplateCounts;
  readonly storageBytes: number;
  readonly pages: MonthlyUsage['pages'];
  readonly dashboardViews: number;
  readonly sampleQueueIdleRequests: number;
}): MonthlyUsage {
  const functions = input.months.map(({ name, everyMs, run }) => {
    const runs = MONTH_MS / everyMs;
    const invocations = runs * run.invocations;
    const printed = input.emitted.functions.find((f) => f.name === name);
    const events = (printed?.eventsPerInvocation ?? 0) + PLATFORM_LOG_EVENTS;
    const bytes =
      (printed?.bytesPerInvocation ?? 0) + PLATFORM_LOG_BYTES + events * LOG_EVENT_OVERHEAD_BYTES;
    return {
      name,
      invocations,
      gbSeconds: runs * (run.billedMs / 1000) * (input.memoryMb / 1024),
      logBytes: invocations * bytes,
      logEvents: invocations * events,
      dynamodbReads: runs * run.dynamodbReads,
      dynamodbWrites: runs * run.dynamodbWrites,
      sqsRequests: runs * run.sqsRequests + (run.sampleQueue ? input.sampleQueueIdleRequests : 0),
      snsPublishes: runs * run.snsPublishes,
    };
  });
  const total = (pick: (f: (typeof functions)[number]) => number) =>
    functions.reduce((sum, f) => sum + pick(f), 0);
  const pollers = input.months.filter((m) => m.name !== 'notifier').length;
  const snsPublishes = total((f) => f.snsPublishes);
  const logBytesPerHour = total((f) => f.logBytes) / (MONTH_MINUTES / 60);
  return {
    functions: functions.map(({ name, invocations, gbSeconds, logBytes, logEvents }) => ({
      name,
      invocations,
      gbSeconds,
      logBytes,
      logEvents,
    })),
    dynamodb: {
      readUnits: total((f) => f.dynamodbReads),
      writeUnits: total((f) => f.dynamodbWrites),
      storageBytes: input.storageBytes,
    },
    sqsRequests: total((f) => f.sqsRequests),
    snsPublishes,
    metrics: classifySeries(input.emitted.series),
    alarms: { count: input.template.alarms, metrics: input.template.alarmMetrics },
    dashboards: input.template.dashboards,
    scheduleRules: input.template.scheduleRules,
    logWidgets: input.template.logWidgets,
    dashboardViews: input.dashboardViews,
    // Each log widget scans the last 3 hours of the log groups it reads (at most all of them).
    scannedBytesPerView: input.template.logWidgets * 3 * logBytesPerHour,
    kms: {
      keys: input.template.kmsKeys,
      requests:
        pollers * (MONTH_MINUTES / TOKEN_CACHE_MINUTES) +
        input.months.length * (MONTH_MINUTES / TABLE_KEY_MINUTES) +
        (snsPublishes + input.pages.smsParts + input.pages.emails) * KMS_PER_PUBLISH,
    },
    pages: input.pages,
  };
}
