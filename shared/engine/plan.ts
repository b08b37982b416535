import type { ApiRequest } from '../api/types';
import { formatDecimal, parseDecimal } from '../money/decimal';
import { formatApiDateTime } from '../time/zone';
import type { Config, Operator, RuleConfig, SourceName } from '../types/config';
import { heldWindows } from './held';
import type { SourceState } from './types';

/** A payments rule's `amount_paid` comparison as query parameters, if it has one. */
function amountPushdown(rule: RuleConfig): { operator: Operator; amount: string } | undefined {
  const condition = rule.where.amount_paid;
  if (condition?.kind !== 'compare') return undefined;
  const amount = parseDecimal(condition.value);
  return amount ? { operator: condition.op, amount: formatDecimal(amount) } : undefined;
}

/**
 * The API requests one run of `source` must make (contract section 2), as plain data the
 * deployed poller and the local poller both perform. Pure.
 *
 * - No rule on the source: no request.
 * - `live_calls`: one request carrying `sources.live_calls.query`.
 * - `payments`: the lookback window, `from_date = now - lookback` and `to_date = now` as
 *   `YYYY-MM-DD HH:MM:SS` in the configured zone. When EVERY payments rule has an
 *   `amount_paid` comparison, one request per distinct (operator, amount): their union holds
 *   every record any rule needs. When some rule has none, a single request without amount,
 *   since pushing a filter down must never fetch less than a rule needs.
 * - `payments` with `state`: the same requests again for each window of `heldWindows`
 *   (`held.ts`), around firing payments older than the lookback, so they can still resolve.
 */
export function planRequests(
  config: Config,
  source: SourceName,
  nowMs: number,
  state?: SourceState,
): ApiRequest[] {
  const rules = config.rules.filter((rule) => rule.source === source);
  if (rules.length === 0) return [];
  if (source === 'live_calls') {
    return [{ endpoint: 'live_calls', query: { ...config.sources.live_calls.query } }];
  }
  const zone = config.timezone;
  const windows = [
    { fromMs: nowMs - config.sources.payments.lookbackMs, toMs: nowMs },
    ...heldWindows(config, state, nowMs),
  ].map(({ fromMs, toMs }) => ({
    from_date: formatApiDateTime(fromMs, zone),
    to_date: formatApiDateTime(toMs, zone),
  }));
  const pushdowns = rules.map(amountPushdown);
  if (pushdowns.some((pushdown) => pushdown === undefined)) {
    return windows.map((window) => ({ endpoint: 'payments', query: window }));
  }
  const distinct = new Map<string, { operator: Operator; amount: string }>();
  for (const pushdown of pushdowns) {
    if (pushdown) distinct.set(`${pushdown.operator} ${pushdown.amount}`, pushdown);
  }
  return windows.flatMap((window) =>
    [...distinct.values()].map(({ operator, amount }) => ({
      endpoint: 'payments' as const,
      query: { ...window, amount, operator },
    })),
  );
}
