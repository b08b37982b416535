import type { Config } from '../shared/config/types';
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
  /** DynamoDB on-demand: one write request unit per write of up to 1 KB. */
  dynamodbPerMillionWriteUnits: 0.625,
  dynamodbPerMillionReadUnits: 0.125,
  /** SNS publish requests (each 64 KB chunk of a batch entry is one request). */
  snsPerMillionPublishes: 0.5,
} as const;

const MONTH_MS = 30 * 86_400_000;

/** What one run of a source costs the account, measured by the bench. */
export interface RunProfile {
  /** Billed handler time of one run: the measured work plus the waits between samples. */
  readonly billedMs: number;
  readonly dynamodbCalls: number;
  readonly snsPublishes: number;
}

export interface CostFigure {
  readonly source: string;
  readonly runsPerMonth: number;
  readonly billedMsPerRun: number;
  readonly lambdaUsd: number;
  readonly dynamodbUsd: number;
  readonly snsUsd: number;
  readonly eventBridgeUsd: number;
  readonly totalUsd: number;
}

/**
 * A month (30 days) of one source's poller. Every DynamoDB call is priced as a write of one
 * unit (reads are a fifth of that; the state item stays under 1 KB when few alerts are
 * active), an upper bound for the calls measured.
 */
export function monthlyCost(
  source: string,
  everyMs: number,
  memoryMb: number,
  run: RunProfile,
): CostFigure {
  const runs = MONTH_MS / everyMs;
  const gbSeconds = runs * (run.billedMs / 1000) * (memoryMb / 1024);
  const lambdaUsd =
    gbSeconds * PRICES.lambdaArmPerGbSecond + (runs / 1e6) * PRICES.lambdaPerMillionRequests;
  const dynamodbUsd = ((runs * run.dynamodbCalls) / 1e6) * PRICES.dynamodbPerMillionWriteUnits;
  const snsUsd = ((runs * run.snsPublishes) / 1e6) * PRICES.snsPerMillionPublishes;
  const eventBridgeUsd = (runs / 1e6) * PRICES.eventBridgeScheduledRulePerMillion;
  return {
    source,
    runsPerMonth: runs,
    billedMsPerRun: round(run.billedMs, 0),
    lambdaUsd: round(lambdaUsd, 4),
    dynamodbUsd: round(dynamodbUsd, 4),
    snsUsd: round(snsUsd, 4),
    eventBridgeUsd,
    totalUsd: round(lambdaUsd + dynamodbUsd + snsUsd + eventBridgeUsd, 4),
  };
}

/** The billed time of a run: the samples wait for their slot inside one invocation. */
export function billedMsPerRun(config: Config, source: 'live_calls' | 'payments', workMs: number) {
  if (source === 'payments') return workMs;
  const { everyMs, samples } = config.sources.live_calls;
  return ((samples - 1) * everyMs) / samples + workMs;
}
