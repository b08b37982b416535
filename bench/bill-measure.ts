/**
 * The bill's measurements in one call for bench/run.ts: the deployed handlers' output, the
 * shipped stack's template, the table's bytes and the month of pages, priced; and its budgets.
 */
import { join } from 'node:path';
import type { Config } from '../shared/types/config';
import type { Loopback } from './aws';
import { type Bill, priceBill } from './bill';
import {
  type FunctionMonth,
  measureEmitted,
  monthlyUsage,
  monthOfPages,
  tableBytes,
  templateCounts,
} from './bill-runs';
import { PRICES } from './cost';
import { messagesPerIncident } from './messages';

const RULES_FILE = 'telealert.yaml';
/** Looks at the dashboard a month, each at its default 3 hours: two a day. */
export const DASHBOARD_VIEWS = 60;
/** Budgets of issue 29 on the all-in monthly figure, delivery excluded, the dearer region. */
export const BILL_BUDGET_FREE_TIER_USD = 3;
export const BILL_BUDGET_LIST_USD = 8;

export async function measureBill(
  loopback: Loopback,
  scratch: string,
  sampleQueueUrl: string,
  input: {
    readonly months: readonly FunctionMonth[];
    readonly memoryMb: number;
    readonly config: Config;
    readonly runs: number;
  },
): Promise<Bill> {
  const emitted = await measureEmitted(loopback, scratch, sampleQueueUrl, input.runs);
  const template = templateCounts(RULES_FILE, join(scratch, 'cdk.out-bill'));
  const storageBytes = await tableBytes(loopback.stack.tableName);
  return priceBill(
    monthlyUsage({
      months: input.months,
      memoryMb: input.memoryMb,
      emitted,
      template,
      storageBytes,
      pages: monthOfPages(input.config, messagesPerIncident(input.config)),
      dashboardViews: DASHBOARD_VIEWS,
      sampleQueueIdleRequests: 30 * 24 * 60 * PRICES.sqsIdlePollsPerMinute,
    }),
  );
}

/** `[name, value, limit, pass]` of each budget on the bill. */
export function billBudgets(bill: Bill): [string, number | string, string, boolean][] {
  const dearest = (pick: 'free' | 'list') =>
    Math.max(...Object.values(bill.allIn).map((totals) => totals[pick]));
  const free = dearest('free');
  const list = dearest('list');
  const unknownSeries = bill.unknownMetrics.length;
  return [
    [
      'bill all-in a month, delivery excluded, within the always-free tier (USD, dearer region)',
      free,
      `<= ${BILL_BUDGET_FREE_TIER_USD}`,
      free <= BILL_BUDGET_FREE_TIER_USD,
    ],
    [
      'bill all-in a month, delivery excluded, list prices (USD, dearer region)',
      list,
      `<= ${BILL_BUDGET_LIST_USD}`,
      list <= BILL_BUDGET_LIST_USD,
    ],
    [
      `custom metrics the inventory does not know${unknownSeries > 0 ? ` (${bill.unknownMetrics.join(', ')})` : ''}`,
      unknownSeries,
      '= 0',
      unknownSeries === 0,
    ],
  ];
}
