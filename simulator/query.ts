import { compareDecimal, type Decimal, parseDecimal } from '../shared/money/decimal';
import { canonicalPhone } from '../shared/records/phone';
import { OPERATORS, type Operator } from '../shared/types/config';
import { QueryError } from './errors';
import type { SimCall, SimPayment } from './records';
import { wallToEpoch } from './wallclock';

/** What `GET /v1/live_calls` was asked for; each present filter must match. */
export interface LiveCallsFilter {
  readonly agentNumber?: string;
  readonly extension?: string;
  readonly didNumber?: string;
  readonly callId?: string;
}

/**
 * What `GET /v1/billing/payments/online` was asked for. Both date bounds are inclusive and
 * compared at the second the record shows; a `yyyy-mm-dd` `to_date` means the whole day.
 */
export interface PaymentsFilter {
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly amount?: { readonly value: Decimal; readonly operator: Operator };
}

/** An empty parameter counts as absent, as PHP-style APIs treat `?amount=`. */
function param(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Reads the live-calls query. Never fails: every filter is free text. */
export function parseLiveCallsQuery(params: URLSearchParams): LiveCallsFilter {
  const agentNumber = param(params, 'agent_number');
  const extension = param(params, 'extension');
  const didNumber = param(params, 'did_number');
  const callId = param(params, 'call_id');
  return {
    ...(agentNumber ? { agentNumber: canonicalPhone(agentNumber) } : {}),
    ...(extension ? { extension } : {}),
    ...(didNumber ? { didNumber: canonicalPhone(didNumber) } : {}),
    ...(callId ? { callId } : {}),
  };
}

/** Phone filters match by canonical number; the extension and call id as exact text. */
export function matchCall(call: SimCall, filter: LiveCallsFilter): boolean {
  if (filter.agentNumber && !call.agentNumbers.includes(filter.agentNumber)) return false;
  if (filter.extension && !call.extensions.includes(filter.extension)) return false;
  if (filter.didNumber && call.did !== filter.didNumber) return false;
  if (filter.callId && call.callId !== filter.callId) return false;
  return true;
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?$/;
const DAY_MS = 86_400_000;

/**
 * Reads `Y-m-d H:i:s` or `yyyy-mm-dd` as wall-clock time in `zone`. A bare date is the start
 * of that day, or with `endOfDay` its last second.
 */
export function parseQueryDate(
  name: string,
  text: string,
  zone: string,
  endOfDay: boolean,
): number {
  const match = DATE_PATTERN.exec(text);
  if (!match) {
    throw new QueryError(name, `"${text}" is not a date: use Y-m-d H:i:s or yyyy-mm-dd`);
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const fields = {
    year: year ?? 0,
    month: month ?? 0,
    day: day ?? 0,
    hour: hour ?? 0,
    minute: minute ?? 0,
    second: second ?? 0,
  };
  const check = new Date(
    Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second),
  );
  if (
    check.getUTCMonth() !== fields.month - 1 ||
    check.getUTCDate() !== fields.day ||
    check.getUTCHours() !== fields.hour ||
    check.getUTCMinutes() !== fields.minute ||
    check.getUTCSeconds() !== fields.second
  ) {
    throw new QueryError(name, `"${text}" is not a real date and time`);
  }
  const dateOnly = match[4] === undefined;
  if (dateOnly && endOfDay) {
    const next = new Date(Date.UTC(fields.year, fields.month - 1, fields.day) + DAY_MS);
    const nextStart = wallToEpoch(
      {
        year: next.getUTCFullYear(),
        month: next.getUTCMonth() + 1,
        day: next.getUTCDate(),
        hour: 0,
        minute: 0,
        second: 0,
      },
      zone,
    );
    return nextStart - 1000;
  }
  return wallToEpoch(fields, zone);
}

function isOperator(text: string): text is Operator {
  return (OPERATORS as readonly string[]).includes(text);
}

/** Reads the payments query; throws `QueryError` (HTTP 400) for anything it cannot use. */
export function parsePaymentsQuery(params: URLSearchParams, zone: string): PaymentsFilter {
  const from = param(params, 'from_date');
  const to = param(params, 'to_date');
  const amountText = param(params, 'amount');
  const operatorText = param(params, 'operator');
  if ((amountText === undefined) !== (operatorText === undefined)) {
    throw new QueryError(
      amountText === undefined ? 'amount' : 'operator',
      'amount and operator must be given together',
    );
  }
  let amount: PaymentsFilter['amount'];
  if (amountText !== undefined && operatorText !== undefined) {
    if (!isOperator(operatorText)) {
      throw new QueryError(
        'operator',
        `"${operatorText}" is not an operator: use one of >, <, >=, <=, <>`,
      );
    }
    const value = parseDecimal(amountText);
    if (!value) throw new QueryError('amount', `"${amountText}" is not a decimal number`);
    amount = { value, operator: operatorText };
  }
  return {
    ...(from !== undefined ? { fromMs: parseQueryDate('from_date', from, zone, false) } : {}),
    ...(to !== undefined ? { toMs: parseQueryDate('to_date', to, zone, true) } : {}),
    ...(amount ? { amount } : {}),
  };
}

const COMPARISONS: Readonly<Record<Operator, (order: -1 | 0 | 1) => boolean>> = {
  '>': (order) => order > 0,
  '<': (order) => order < 0,
  '>=': (order) => order >= 0,
  '<=': (order) => order <= 0,
  '<>': (order) => order !== 0,
};

/** Whether a payment passes the filter: dates at the shown second, amount exactly. */
export function matchPayment(payment: SimPayment, filter: PaymentsFilter): boolean {
  const shownMs = Math.floor(payment.createdMs / 1000) * 1000;
  if (filter.fromMs !== undefined && shownMs < filter.fromMs) return false;
  if (filter.toMs !== undefined && shownMs > filter.toMs) return false;
  if (filter.amount) {
    const paid: Decimal = { units: BigInt(payment.paidPaise), scale: 2 };
    const order = compareDecimal(paid, filter.amount.value);
    if (!COMPARISONS[filter.amount.operator](order)) return false;
  }
  return true;
}
