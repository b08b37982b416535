import type { Config } from '../shared/types/config';
import { round } from './stats';

/**
 * Published on-demand prices, us-east-1, taken 2026-11-21 (AWS pricing pages, cross-checked
 * against third-party summaries of them; free tiers and SMS/email delivery left out).
 */
export const PRICES = {
  takenOn: '2026-11-21',
  region: 'us-east-1',
  /** Lambda, arm64, first 7.5 billion GB-s of a month. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** EventBridge rules on a schedule (the stack's `Rule` + `Schedule.rate`) are not charged. */
  eventBridgeScheduledRulePerMillion: 0,
  /** DynamoDB on-demand: a write unit per write of up to 1 KB, a read unit per strongly consistent read of up to 4 KB. */
  dynamodbPerMillionWriteUnits: 0.625,
  dynamodbPerMillionReadUnits: 0.125,
  /** SNS publish requests (each 64 KB chunk of a batch entry is one request). */
  snsPerMillionPublishes: 0.5,
  /** SQS standard queue requests (a batch of up to 10 messages is one request per 64 KB). */
  sqsPerMillionRequests: 0.4,
  /**
   * Requests an SQS event source mapping makes on an idle queue: Lambda long-polls it with
   * five connections of 20 s each (AWS Lambda developer guide, "Using Lambda with Amazon SQS").
   */
  sqsIdlePollsPerMinute: 15,
} as const;

const MONTH_MS = 30 * 86_400_000;
const MONTH_MINUTES = MONTH_MS / 60_000;

/** What one run of a source costs the account, measured by the bench. */
export interface RunProfile {
  /** Lambda invocations of a run: the scheduled one plus one per queued sample. */
  readonly invocations: number;
  /** Billed handler time of a run, summed over its invocations. */
  readonly billedMs: number;
  /** Item reads and writes, each of one unit (the state item stays small while few alerts fire). */
  readonly dynamodbReads: number;
  readonly dynamodbWrites: number;
  readonly snsPublishes: number;
  /** SQS requests of a run: its sends, and a receive and a delete per queued sample. */
  readonly sqsRequests: number;
  /** The source has a sample queue, so its event source mapping polls it all month. */
  readonly sampleQueue: boolean;
}

export interface CostFigure {
  readonly source: string;
  readonly runsPerMonth: number;
  readonly invocationsPerRun: number;
  readonly billedMsPerRun: number;
  readonly lambdaUsd: number;
  readonly dynamodbUsd: number;
  readonly snsUsd: number;
  readonly sqsUsd: number;
  readonly eventBridgeUsd: number;
  readonly totalUsd: number;
}

/** A month (30 days) of one source's poller. */
export function monthlyCost(
  source: string,
  everyMs: number,
  memoryMb: number,
  run: RunProfile,
): CostFigure {
  const runs = MONTH_MS / everyMs;
  const invocations = runs * run.invocations;
  const gbSeconds = runs * (run.billedMs / 1000) * (memoryMb / 1024);
  const lambdaUsd =
    gbSeconds * PRICES.lambdaArmPerGbSecond + (invocations / 1e6) * PRICES.lambdaPerMillionRequests;
  const dynamodbUsd =
    ((runs * run.dynamodbWrites) / 1e6) * PRICES.dynamodbPerMillionWriteUnits +
    ((runs * run.dynamodbReads) / 1e6) * PRICES.dynamodbPerMillionReadUnits;
  const snsUsd = ((runs * run.snsPublishes) / 1e6) * PRICES.snsPerMillionPublishes;
  const sqsRequests =
    runs * run.sqsRequests + (run.sampleQueue ? MONTH_MINUTES * PRICES.sqsIdlePollsPerMinute : 0);
  const sqsUsd = (sqsRequests / 1e6) * PRICES.sqsPerMillionRequests;
  const eventBridgeUsd = (runs / 1e6) * PRICES.eventBridgeScheduledRulePerMillion;
  return {
    source,
    runsPerMonth: runs,
    invocationsPerRun: run.invocations,
    billedMsPerRun: round(run.billedMs, 0),
    lambdaUsd: round(lambdaUsd, 4),
    dynamodbUsd: round(dynamodbUsd, 4),
    snsUsd: round(snsUsd, 4),
    sqsUsd: round(sqsUsd, 4),
    eventBridgeUsd,
    totalUsd: round(lambdaUsd + dynamodbUsd + snsUsd + sqsUsd + eventBridgeUsd, 4),
  };
}

/**
 * Billed time of a live calls run that takes every sample in one invocation (no sample
 * queue): the waits between samples are billed too.
 */
export function inOneInvocationMs(config: Config, workMs: number): number {
  const { everyMs, samples } = config.sources.live_calls;
  return ((samples - 1) * everyMs) / samples + workMs;
}
