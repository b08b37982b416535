/**
 * The honest bill (issue 29): what a month of telealert costs on the shipped rules, every item
 * the stack is billed for, at list prices in both regions, with and without the always-free
 * tier, and what people receive (SMS and email) for a stated month of pages. The quantities
 * come from the bench's runs of the deployed handlers (bench/bill-runs.ts) and the
 * synthesized template; the prices from bench/bill-prices.ts.
 */
import {
  BILL_PRICES_TAKEN_ON,
  FREE_TIER,
  PRICE_SOURCES,
  PRICES_BY_REGION,
  REGIONS,
  type Region,
  type RegionPrices,
  SMS_INDIA_DLT_PER_PART,
} from './bill-prices';
import { round } from './stats';

const GB = 1e9;

/** A month of the stack's usage, as measured and counted. */
export interface MonthlyUsage {
  /** Each function's month: invocations, GB-seconds billed, log bytes and events written. */
  readonly functions: readonly {
    readonly name: string;
    readonly invocations: number;
    readonly gbSeconds: number;
    readonly logBytes: number;
    readonly logEvents: number;
  }[];
  readonly dynamodb: {
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly storageBytes: number;
  };
  readonly sqsRequests: number;
  readonly snsPublishes: number;
  /** Custom metric series seen in the functions' EMF, by how they are published. */
  readonly metrics: {
    readonly everyRun: readonly string[];
    readonly whenItHappens: readonly string[];
    /** Series the inventory does not know (a budget fails on any). */
    readonly unknown: readonly string[];
  };
  /** Standard alarms and the metrics they read (each alarm metric is billed). */
  readonly alarms: { readonly count: number; readonly metrics: number };
  readonly dashboards: number;
  /** EventBridge rules on a schedule (not charged). */
  readonly scheduleRules: number;
  /** Logs Insights widgets, and the bytes all of them scan for one look at the dashboard. */
  readonly logWidgets: number;
  readonly dashboardViews: number;
  readonly scannedBytesPerView: number;
  readonly kms: { readonly keys: number; readonly requests: number };
  /** What people receive in the stated month of pages. */
  readonly pages: {
    readonly description: string;
    readonly smsParts: number;
    readonly emails: number;
  };
}

export interface BillLine {
  readonly item: string;
  readonly quantity: string;
  /** USD a month per region, at list prices and after the always-free tier. */
  readonly usd: Readonly<Record<Region, { readonly list: number; readonly free: number }>>;
  /** Delivery (SMS, email) is not part of the all-in figure the budget judges. */
  readonly delivery?: boolean;
  readonly source: string;
}

export interface Bill {
  readonly pricesTakenOn: string;
  /** Custom metric series the functions published that `METRIC_INVENTORY` does not know. */
  readonly unknownMetrics: readonly string[];
  readonly lines: readonly BillLine[];
  /** All-in, delivery excluded, per region: list prices and within the always-free tier. */
  readonly allIn: Readonly<Record<Region, { readonly list: number; readonly free: number }>>;
  readonly delivery: Readonly<Record<Region, { readonly list: number; readonly free: number }>>;
  /** The month of pages the delivery lines price, and the cost of one SMS and one email. */
  readonly pages: MonthlyUsage['pages'] & {
    readonly perSmsUsd: number;
    readonly perEmailUsd: number;
  };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const over = (quantity: number, allowance: number) => Math.max(0, quantity - allowance);

/** One line of the bill: its cost in each region at list price and after the free tier. */
function line(
  item: string,
  quantity: string,
  source: string,
  cost: (prices: RegionPrices, free: boolean) => number,
  delivery = false,
): BillLine {
  const usd = Object.fromEntries(
    REGIONS.map((region) => {
      const prices = PRICES_BY_REGION[region];
      return [region, { list: round(cost(prices, false), 4), free: round(cost(prices, true), 4) }];
    }),
  ) as BillLine['usd'];
  return { item, quantity, usd, source, ...(delivery ? { delivery } : {}) };
}

/** Prices a month of `usage`: every item, in both regions, with and without the free tier. */
export function priceBill(usage: MonthlyUsage): Bill {
  const invocations = sum(usage.functions.map((f) => f.invocations));
  const gbSeconds = sum(usage.functions.map((f) => f.gbSeconds));
  const logBytes = sum(usage.functions.map((f) => f.logBytes));
  // 30 days' retention: what is stored at any time is about a month of ingestion.
  const storedBytes = logBytes;
  const scannedBytes = usage.dashboardViews * usage.scannedBytesPerView;
  const metrics = usage.metrics.everyRun.length + usage.metrics.unknown.length;
  const lines: BillLine[] = [
    line(
      'custom metrics (EMF)',
      `${metrics} published every hour (${[...usage.metrics.everyRun, ...usage.metrics.unknown].join(', ')}); ` +
        `${usage.metrics.whenItHappens.length} only in hours they happen, none in this month (${usage.metrics.whenItHappens.join(', ') || 'none'})`,
      PRICE_SOURCES.cloudwatch,
      (p, free) => over(metrics, free ? FREE_TIER.customMetrics : 0) * p.customMetricPerMonth,
    ),
    line(
      'KMS key of the topics',
      `${usage.kms.keys} key`,
      PRICE_SOURCES.kms,
      (p) => usage.kms.keys * p.kmsKeyPerMonth,
    ),
    line(
      'KMS requests',
      `${Math.round(usage.kms.requests).toLocaleString('en-US')} (SSM token reads, the table's key, SNS publishes)`,
      PRICE_SOURCES.kms,
      (p, free) =>
        (over(usage.kms.requests, free ? FREE_TIER.kmsRequests : 0) / 10_000) * p.kmsPer10kRequests,
    ),
    line(
      'alarms',
      `${usage.alarms.count} standard alarms, ${usage.alarms.metrics} metrics`,
      PRICE_SOURCES.cloudwatch,
      (p, free) =>
        over(usage.alarms.metrics, free ? FREE_TIER.alarmMetrics : 0) * p.alarmMetricPerMonth,
    ),
    line(
      'dashboard',
      `${usage.dashboards} dashboard (${usage.logWidgets} Logs Insights widgets)`,
      PRICE_SOURCES.cloudwatch,
      (p, free) => over(usage.dashboards, free ? FREE_TIER.dashboards : 0) * p.dashboardPerMonth,
    ),
    ...logLines(logBytes, storedBytes, scannedBytes, usage),
    line(
      'DynamoDB requests',
      `${Math.round(usage.dynamodb.writeUnits).toLocaleString('en-US')} write and ${Math.round(usage.dynamodb.readUnits).toLocaleString('en-US')} read units (on demand: no free tier)`,
      PRICE_SOURCES.dynamodb,
      (p) =>
        (usage.dynamodb.writeUnits / 1e6) * p.dynamodbPerMillionWriteUnits +
        (usage.dynamodb.readUnits / 1e6) * p.dynamodbPerMillionReadUnits,
    ),
    line(
      'DynamoDB storage and point-in-time recovery',
      `${round(usage.dynamodb.storageBytes / 1024, 1)} KB (the stream is free to Lambda)`,
      PRICE_SOURCES.dynamodb,
      (p, free) =>
        over(usage.dynamodb.storageBytes / GB, free ? FREE_TIER.dynamodbStorageGb : 0) *
          p.dynamodbStoragePerGbMonth +
        (usage.dynamodb.storageBytes / GB) * p.dynamodbPitrPerGbMonth,
    ),
    line(
      'Lambda',
      `${Math.round(invocations).toLocaleString('en-US')} invocations, ${Math.round(gbSeconds).toLocaleString('en-US')} GB-s (arm64, 256 MB)`,
      PRICE_SOURCES.lambda,
      (p, free) =>
        over(gbSeconds, free ? FREE_TIER.lambdaGbSeconds : 0) * p.lambdaArmPerGbSecond +
        (over(invocations, free ? FREE_TIER.lambdaRequests : 0) / 1e6) * p.lambdaPerMillionRequests,
    ),
    line(
      'SNS publishes',
      `${usage.snsPublishes.toLocaleString('en-US')} (quiet month; a month of pages adds its messages)`,
      PRICE_SOURCES.sns,
      (p, free) =>
        (over(usage.snsPublishes, free ? FREE_TIER.snsPublishes : 0) / 1e6) *
        p.snsPerMillionPublishes,
    ),
    line(
      'SQS requests',
      `${Math.round(usage.sqsRequests).toLocaleString('en-US')} (the sample queue, its event source mapping's polls)`,
      PRICE_SOURCES.sqs,
      (p, free) =>
        (over(usage.sqsRequests, free ? FREE_TIER.sqsRequests : 0) / 1e6) * p.sqsPerMillionRequests,
    ),
    line(
      'EventBridge schedules',
      `${usage.scheduleRules} scheduled rules (not charged)`,
      'aws.amazon.com/eventbridge/pricing',
      () => 0,
    ),
    line(
      'delivery: SMS to India (DLT local route)',
      `${usage.pages.smsParts.toLocaleString('en-US')} SMS parts (${usage.pages.description})`,
      PRICE_SOURCES.sms,
      () => usage.pages.smsParts * SMS_INDIA_DLT_PER_PART,
      true,
    ),
    line(
      'delivery: email',
      `${usage.pages.emails.toLocaleString('en-US')} emails (${usage.pages.description})`,
      PRICE_SOURCES.sns,
      (p, free) =>
        (over(usage.pages.emails, free ? FREE_TIER.snsEmails : 0) / 1000) * p.snsEmailPer1000,
      true,
    ),
  ];
  const total = (delivery: boolean) =>
    Object.fromEntries(
      REGIONS.map((region) => {
        const mine = lines.filter((l) => Boolean(l.delivery) === delivery);
        return [
          region,
          {
            list: round(sum(mine.map((l) => l.usd[region].list)), 2),
            free: round(sum(mine.map((l) => l.usd[region].free)), 2),
          },
        ];
      }),
    ) as Bill['allIn'];
  return {
    pricesTakenOn: BILL_PRICES_TAKEN_ON,
    unknownMetrics: usage.metrics.unknown,
    lines,
    allIn: total(false),
    delivery: total(true),
    pages: {
      ...usage.pages,
      perSmsUsd: SMS_INDIA_DLT_PER_PART,
      perEmailUsd: PRICES_BY_REGION['us-east-1'].snsEmailPer1000 / 1000,
    },
  };
}

/**
 * Logs: ingestion, storage (30 days) and the dashboard's Logs Insights scans, which share one
 * free allowance of 5 GB (taken by ingestion first, then storage, then scans).
 */
function logLines(
  logBytes: number,
  storedBytes: number,
  scannedBytes: number,
  usage: MonthlyUsage,
): BillLine[] {
  const freeLeft = (free: boolean, before: number) =>
    free ? Math.max(0, FREE_TIER.logsGb - before / GB) : 0;
  const events = sum(usage.functions.map((f) => f.logEvents));
  return [
    line(
      'logs ingestion',
      `${round(logBytes / 1e6, 1)} MB, ${Math.round(events).toLocaleString('en-US')} events (${usage.functions.map((f) => `${f.name} ${round(f.logBytes / 1e6, 1)} MB`).join(', ')})`,
      PRICE_SOURCES.cloudwatch,
      (p, free) => over(logBytes / GB, freeLeft(free, 0)) * p.logsIngestPerGb,
    ),
    line(
      'logs storage (30 days)',
      `${round(storedBytes / 1e6, 1)} MB kept (uncompressed: an upper bound)`,
      PRICE_SOURCES.cloudwatch,
      (p, free) => over(storedBytes / GB, freeLeft(free, logBytes)) * p.logsStoragePerGbMonth,
    ),
    line(
      'Logs Insights (dashboard)',
      `${round(scannedBytes / 1e6, 1)} MB scanned: ${usage.dashboardViews} looks a month at the last 3 hours`,
      PRICE_SOURCES.cloudwatch,
      (p, free) =>
        over(scannedBytes / GB, freeLeft(free, logBytes + storedBytes)) *
        p.logsInsightsPerGbScanned,
    ),
  ];
}

/** The bill as rows for the bench's table. */
export function billRows(bill: Bill): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = bill.lines.map((l) => ({
    item: l.item,
    'us-east-1': l.usd['us-east-1'].list,
    'us-east-1 free tier': l.usd['us-east-1'].free,
    'ap-south-1': l.usd['ap-south-1'].list,
    'ap-south-1 free tier': l.usd['ap-south-1'].free,
    quantity: l.quantity,
  }));
  for (const [label, totals] of [
    ['ALL-IN, delivery excluded', bill.allIn],
    ['delivery (the month of pages)', bill.delivery],
  ] as const) {
    rows.push({
      item: label,
      'us-east-1': totals['us-east-1'].list,
      'us-east-1 free tier': totals['us-east-1'].free,
      'ap-south-1': totals['ap-south-1'].list,
      'ap-south-1 free tier': totals['ap-south-1'].free,
      quantity: '',
    });
  }
  return rows;
}

/** The bill as the bench prints it: a table, then where the prices come from. */
export function renderBill(bill: Bill): string {
  const rows = billRows(bill);
  const columns = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((cell) => (cell[i] ?? '').length)),
  );
  const render = (values: readonly string[]) =>
    `  ${values.map((value, i) => value.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  const sources = [...new Set(bill.lines.map((l) => l.source))];
  return [
    `5. the bill: a month (30 days) of the shipped rules, USD, list prices taken ${bill.pricesTakenOn}; "free tier": after the always-free tier`,
    render(columns),
    ...cells.map(render),
    `  delivery: USD ${bill.pages.perSmsUsd} an SMS part to India (DLT local route), USD ${bill.pages.perEmailUsd} an email; ${bill.pages.description}`,
    '  prices:',
    ...sources.map((source) => `    ${source}`),
  ].join('\n');
}
