/*
 * The volume figure of issue 18: the deployed payments function's first run against an answer
 * of 150,000 payments that one rule matches in full (a broad per-record rule on a first
 * deployment, a gateway incident). Before the per-source limit it crashed ("Maximum call stack
 * size exceeded"), committed nothing, and every later run crashed the same way.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { parse } from 'yaml';
import { DynamoStateStore } from '../functions/adapters/dynamodb-state';
import { createNotifierHandler } from '../functions/notifier-handler';
import type { NotifierSummary } from '../functions/notifier-metrics';
import { writeEmbeddedConfig } from '../shared/config/embedded';
import { validateConfig } from '../shared/config/validate';
import { TOO_MANY_ALERTS } from '../shared/engine/limit';
import {
  bundleChild,
  childRss,
  type DeployedMemorySetup,
  lambdaHeapFlags,
  runDeployed,
  serveBody,
  TOKEN,
} from './memory';
import { bodyText } from './processing';

export const VOLUME_COUNT = 150_000;
/** The broad rule added to the shipped ones: every payment of the answer matches it. */
export const VOLUME_RULE = 'every-payment';
/** The function's memory: the peak must fit it. */
export const LAMBDA_MEMORY_MB = 256;

/**
 * Payments rules on the source in the deployed figure: the shipped two, `VOLUME_RULE` and
 * rules that never match, so each rule's share is 200 (`ruleLimit`). moto stores and publishes
 * a few hundred notifications a minute on this machine; the share a rule gets changes nothing
 * in the 150,000 records read and evaluated.
 */
export const VOLUME_PAYMENTS_RULES = 30;

/**
 * The shipped rules plus `VOLUME_RULE`, as data (what `cdk synth` ships as `telealert.json`),
 * and payments rules that never match up to `paymentsRules` on the source.
 */
export function volumeRulesData(
  path = 'telealert.yaml',
  paymentsRules = VOLUME_PAYMENTS_RULES,
): Record<string, unknown> {
  const data = parse(readFileSync(path, 'utf8')) as Record<string, unknown> & {
    rules: Record<string, unknown>[];
  };
  data.rules.push({
    name: VOLUME_RULE,
    source: 'payments',
    where: {},
    severity: 'warning',
    notify: ['oncall'],
  });
  const shipped = data.rules.filter((rule) => rule.source === 'payments').length;
  for (let i = shipped; i < paymentsRules; i += 1) {
    data.rules.push({
      name: `never-${i}`,
      source: 'payments',
      where: { amount_paid: '< 0' },
      notify: ['oncall'],
    });
  }
  return data;
}

export interface VolumeFigure {
  readonly body: string;
  /** Peak RSS of the process, under the 256 MB function's heap limits and environment. */
  readonly rssMb: number;
  readonly limitMb: number;
  /**
   * Per invocation (the first run, then the next): records read, notifications owed after it
   * (committed for the notifier: deployed, the poller sends nothing itself), wall time.
   */
  readonly invocations: readonly { records: number; owed: number; ms: number }[];
  /**
   * The notifier's round after the two runs, as the table's stream invokes it: events taken in,
   * messages decided and published, wall time, and what was still owed afterwards.
   */
  readonly notifier: {
    readonly taken: number;
    readonly messages: number;
    readonly published: number;
    readonly ms: number;
    readonly owedAfter: number;
  };
  /** What the committed state holds: per rule, instances tracked and (too_many_alerts) left out. */
  readonly rules: readonly { rule: string; tracked: number; untracked: number }[];
  /** The committed state's alerts raised by the limit. */
  readonly limitAlerts: number;
  /**
   * Every run succeeded, the state was committed, the notifier took in everything owed and
   * published its messages, nothing is left owed, it fits the memory.
   */
  readonly pass: boolean;
}

/**
 * Runs the deployed payments bundle of `setup` (its rules: `volumeRulesData`) as Lambda runs it
 * (256 MB heap limits, the pollers' environment) twice in a row from an empty state, against
 * a loopback API serving `VOLUME_COUNT` generated payments: the first run must commit its state
 * and what it owes, the second must load that state and run again (no crash loop). Then the
 * notifier function's round, in this process, as the table's stream would invoke it: it must
 * take in everything owed and publish it. Reads the committed state back from the table.
 */
export async function measureVolume(
  directory: string,
  nowMs: number,
  zone: string,
  setup: DeployedMemorySetup,
): Promise<VolumeFigure> {
  const file = join(directory, 'payments-150k.json');
  writeFileSync(file, bodyText('payments', VOLUME_COUNT, nowMs, zone));
  const api = await serveBody(file, setup.token, zone);
  try {
    const { rssMb, runs, rulesFile } = await runDeployed(directory, setup, api.url, [
      'first',
      'next',
    ]);
    const notifier = await notifierRoundAfter(setup, rulesFile);
    const store = new DynamoStateStore({ client: new DynamoDBClient({}), tableName: setup.table });
    const stored = await store.load('payments');
    const alerts = Object.values(stored.state?.alerts ?? {});
    const tracked = new Map<string, number>();
    const untracked = new Map<string, number>();
    for (const instance of alerts) {
      if (instance.rule === TOO_MANY_ALERTS) {
        const rule = instance.labels.rule ?? '?';
        untracked.set(rule, Number(instance.context.untracked ?? 0));
      } else tracked.set(instance.rule, (tracked.get(instance.rule) ?? 0) + 1);
    }
    const rules = [...new Set([...tracked.keys(), ...untracked.keys()])].sort().map((rule) => ({
      rule,
      tracked: tracked.get(rule) ?? 0,
      untracked: untracked.get(rule) ?? 0,
    }));
    const owed = runs.at(-1)?.owedLeft ?? 0;
    const ok =
      runs.length === 2 &&
      runs.every((run) => run.failures === 0 && run.samples === 1) &&
      notifier.taken === owed &&
      notifier.published > 0 &&
      notifier.owedAfter === 0 &&
      stored.owed.length === 0 &&
      (untracked.get(VOLUME_RULE) ?? 0) > 0;
    return {
      body: `${VOLUME_COUNT / 1000}k payments, rule ${VOLUME_RULE} matching all`,
      rssMb,
      limitMb: LAMBDA_MEMORY_MB,
      invocations: runs.map(({ records, owedLeft, ms }) => ({ records, owed: owedLeft, ms })),
      notifier,
      rules,
      limitAlerts: untracked.size,
      pass: ok && rssMb <= LAMBDA_MEMORY_MB,
    };
  } finally {
    await api.close();
  }
}

/**
 * One round of the notifier function (its handler in this process, on the same table, topics
 * and rules), invoked as the table's stream invokes it after a poller's commit.
 */
async function notifierRoundAfter(
  setup: DeployedMemorySetup,
  rulesFile: string,
): Promise<VolumeFigure['notifier']> {
  const handler = createNotifierHandler({
    logger: new Logger({ logLevel: 'SILENT' }),
    env: {
      ...process.env,
      ...setup.environment,
      TELEALERT_CONFIG_FILE: rulesFile,
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  });
  const started = performance.now();
  const summary = (await handler({ Records: [] }, {
    awsRequestId: 'volume-notifier',
    functionName: 'bench-notifier',
    getRemainingTimeInMillis: () => 50_000,
  } as unknown as Context)) as NotifierSummary;
  const ms = Math.round(performance.now() - started);
  const store = new DynamoStateStore({ client: new DynamoDBClient({}), tableName: setup.table });
  const owedAfter = (await store.loadOwed('payments')).length;
  return {
    taken: summary.taken,
    messages: summary.decided.length,
    published: summary.published.length,
    ms,
    owedAfter,
  };
}

/** The client and engine alone over the 150,000 payments, the shipped rules and the broad one. */
export interface VolumePipelineFigure {
  readonly body: string;
  readonly paymentsRules: number;
  /** Peak RSS under the 256 MB function's heap limits. */
  readonly rssMb: number;
  /** The process's wall time: start, two fetches of the body, two evaluations. */
  readonly ms: number;
  readonly pass: boolean;
}

/**
 * The worst case for memory that moto cannot take in a bench's time: the shipped rules and
 * `VOLUME_RULE` (three payments rules: 2,000 tracked each), whose first evaluation renders
 * some 4,000 notifications. `bench/memory-child.ts` (the poller's client and pipeline, bundled
 * as the pollers are, no SDK) asks a loopback API for the body and evaluates it twice (the
 * first run, then the next on its state) under the heap limits of a 256 MB Lambda.
 */
export async function measureVolumePipeline(
  directory: string,
  nowMs: number,
  zone: string,
): Promise<VolumePipelineFigure> {
  const file = join(directory, 'payments-150k-pipeline.json');
  writeFileSync(file, bodyText('payments', VOLUME_COUNT, nowMs, zone));
  const rulesData = volumeRulesData('telealert.yaml', 0);
  const rules = join(directory, 'volume-rules.json');
  // As the Lambda reads its rules: validated, in the format synth ships.
  writeEmbeddedConfig(rules, validateConfig(rulesData, 'volume-rules.json'));
  const paymentsRules = (rulesData.rules as { source?: string }[]).filter(
    (rule) => rule.source === 'payments',
  ).length;
  const script = await bundleChild(directory);
  const api = await serveBody(file, TOKEN);
  try {
    const started = performance.now();
    const args = ['--api', api.url, TOKEN, String(nowMs), rules];
    const rssMb = Math.round(await childRss(script, args, lambdaHeapFlags(LAMBDA_MEMORY_MB)));
    return {
      body: `${VOLUME_COUNT / 1000}k payments, rule ${VOLUME_RULE} matching all`,
      paymentsRules,
      rssMb,
      ms: Math.round(performance.now() - started),
      pass: rssMb <= LAMBDA_MEMORY_MB,
    };
  } finally {
    await api.close();
  }
}
