/**
 * List prices of everything the stack is billed for (issue 29), in the two regions the project
 * names: us-east-1 (where the bench's request figures were first priced) and ap-south-1
 * (Mumbai, next to the provider and the people paged). Where a price was read from a stored
 * page (the search tool, 2026-11-28 and 2026-11-29: an AWS page, or third-party summaries that
 * agree with each other) its `source` says so; the others are the AWS list prices as last
 * published to our knowledge, marked `recalled`: check them on the page named before relying
 * on a cent of them.
 */

/** When these prices were taken (or last checked). */
export const BILL_PRICES_TAKEN_ON = '2026-11-29';

export const REGIONS = ['us-east-1', 'ap-south-1'] as const;
export type Region = (typeof REGIONS)[number];

export interface RegionPrices {
  /** Lambda arm64, per GB-second and per million requests. */
  readonly lambdaArmPerGbSecond: number;
  readonly lambdaPerMillionRequests: number;
  /** DynamoDB on demand: per million write / read request units; storage and PITR per GB-month. */
  readonly dynamodbPerMillionWriteUnits: number;
  readonly dynamodbPerMillionReadUnits: number;
  readonly dynamodbStoragePerGbMonth: number;
  readonly dynamodbPitrPerGbMonth: number;
  readonly snsPerMillionPublishes: number;
  /** SNS email deliveries, per 1,000. */
  readonly snsEmailPer1000: number;
  readonly sqsPerMillionRequests: number;
  /** CloudWatch: a custom metric a month (first 10,000), a standard alarm metric, a dashboard. */
  readonly customMetricPerMonth: number;
  readonly alarmMetricPerMonth: number;
  readonly dashboardPerMonth: number;
  /** CloudWatch Logs: ingestion per GB, storage per GB-month, Logs Insights per GB scanned. */
  readonly logsIngestPerGb: number;
  readonly logsStoragePerGbMonth: number;
  readonly logsInsightsPerGbScanned: number;
  /** KMS: a customer managed key a month; requests per 10,000. */
  readonly kmsKeyPerMonth: number;
  readonly kmsPer10kRequests: number;
}

/** Where each price comes from, by the item of the bill it prices. */
export const PRICE_SOURCES = {
  lambda:
    'aws.amazon.com/lambda/pricing (us-east-1 from stored third-party summaries, 2026-11-29: arm64 USD 0.0000133334/GB-s, 0.20/M requests, free 1M requests and 400,000 GB-s; ap-south-1 recalled as the same)',
  dynamodb:
    'aws.amazon.com/dynamodb/pricing/on-demand (us-east-1 requests: bench/cost.ts, 2026-11-21; storage, PITR and ap-south-1: recalled)',
  sns: 'aws.amazon.com/sns/pricing (stored third-party summaries, 2026-06 and 2026-11-29: publishes USD 0.50/M, email USD 2.00/100,000)',
  sqs: 'aws.amazon.com/sqs/pricing (bench/cost.ts, 2026-11-21)',
  cloudwatch:
    'aws.amazon.com/cloudwatch/pricing (stored page: free tier 10 metrics, 10 alarm metrics, 3 dashboards, 5 GB logs; ' +
    'paid tier USD 0.30/metric, 0.10/alarm, 3.00/dashboard, logs 0.50/GB, 0.03/GB-month, 0.005/GB scanned from stored third-party summaries; ap-south-1 recalled as the same)',
  kms: 'aws.amazon.com/kms/pricing (stored page: USD 1/key-month, 20,000 free requests; 0.03/10,000 from a stored summary)',
  sms: 'aws.amazon.com/end-user-messaging/pricing (recalled, not in the stored pages: India, local route with DLT registration, which AWS sends from ap-south-1 and ap-south-2 only since 2025-04-30: its SMS guide, stored)',
} as const;

export const PRICES_BY_REGION: Readonly<Record<Region, RegionPrices>> = {
  'us-east-1': {
    lambdaArmPerGbSecond: 0.0000133334,
    lambdaPerMillionRequests: 0.2,
    dynamodbPerMillionWriteUnits: 0.625,
    dynamodbPerMillionReadUnits: 0.125,
    dynamodbStoragePerGbMonth: 0.25,
    dynamodbPitrPerGbMonth: 0.2,
    snsPerMillionPublishes: 0.5,
    snsEmailPer1000: 0.02,
    sqsPerMillionRequests: 0.4,
    customMetricPerMonth: 0.3,
    alarmMetricPerMonth: 0.1,
    dashboardPerMonth: 3,
    logsIngestPerGb: 0.5,
    logsStoragePerGbMonth: 0.03,
    logsInsightsPerGbScanned: 0.005,
    kmsKeyPerMonth: 1,
    kmsPer10kRequests: 0.03,
  },
  'ap-south-1': {
    lambdaArmPerGbSecond: 0.0000133334,
    lambdaPerMillionRequests: 0.2,
    // Mumbai's on-demand requests list at about 1.14x us-east-1's (recalled).
    dynamodbPerMillionWriteUnits: 0.7125,
    dynamodbPerMillionReadUnits: 0.1425,
    dynamodbStoragePerGbMonth: 0.285,
    dynamodbPitrPerGbMonth: 0.228,
    snsPerMillionPublishes: 0.5,
    snsEmailPer1000: 0.02,
    sqsPerMillionRequests: 0.4,
    customMetricPerMonth: 0.3,
    alarmMetricPerMonth: 0.1,
    dashboardPerMonth: 3,
    logsIngestPerGb: 0.5,
    logsStoragePerGbMonth: 0.03,
    logsInsightsPerGbScanned: 0.005,
    kmsKeyPerMonth: 1,
    kmsPer10kRequests: 0.03,
  },
};

/**
 * An SMS to an Indian number over the local route (the sender ID and templates registered on
 * DLT), per message part (recalled list price; AWS sends the local route from ap-south-1 and
 * ap-south-2 only, docs/deploy.md; the international
 * route, without DLT, costs about 20 times more: a stored write-up of sending SMS in India
 * through SNS says so).
 */
export const SMS_INDIA_DLT_PER_PART = 0.0028;

/** The always-free tier (per month, per account), as the bill applies it. */
export const FREE_TIER = {
  lambdaRequests: 1_000_000,
  lambdaGbSeconds: 400_000,
  sqsRequests: 1_000_000,
  snsPublishes: 1_000_000,
  snsEmails: 1_000,
  customMetrics: 10,
  alarmMetrics: 10,
  dashboards: 3,
  /** Logs: ingestion, storage and Logs Insights scans together. */
  logsGb: 5,
  kmsRequests: 20_000,
  dynamodbStorageGb: 25,
} as const;
