import { readConditionValue } from '../conditions/values';
import type { RuleConfig } from '../types/config';
import type { ConfigIssue } from './errors';

/*
 * A payments rule that validates but could never fire: payments are fetched only while they
 * are younger than `sources.payments.lookback` (the query's from_date), so an age the rule
 * waits for at or past it is never seen. Refused, naming the lookback to raise.
 */

const LOOKBACK = 'sources.payments.lookback';

/** A duration condition value in ms (validated already, so readable). */
function durationMs(text: string): number {
  const read = readConditionValue('duration', text);
  return read?.kind === 'duration' ? read.value * 1000 : 0;
}

/** `1d 2h 3m 4s`, every part kept (a lookback to raise must not be rounded down). */
function written(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'm'],
    [seconds % 60, 's'],
  ] as const;
  const shown = parts.filter(([amount]) => amount > 0).map(([amount, unit]) => `${amount}${unit}`);
  return shown.length === 0 ? '0s' : shown.join(' ');
}

function neverFetched(what: string, lookbackMs: number, raiseAboveMs: number): string {
  return `${what} can never hold: payments older than ${LOOKBACK} (${written(lookbackMs)}) are never fetched; raise the lookback above ${written(raiseAboveMs)}`;
}

/**
 * Issues for a payments rule whose `age` condition or `for` reaches past the lookback
 * (`lookbackMs`), at `rules[index]...` paths:
 * - `age: "> X"` or `">= X"` with X at or past the lookback never holds, nor does an equality
 *   value at or past it (each list item on its own). `<`, `<=` and `<>` hold for young payments.
 * - a per-record rule's `for` is reached only when the condition held that long for one
 *   payment: from the youngest age it holds at (X of `> X`/`>= X`, else 0) to the oldest (the
 *   lookback, or Y of `< Y`/`<= Y` when lower). An aggregate's `for` spans many payments, so
 *   the lookback does not bound it; an equality on age holds for an instant, so no `for` is
 *   reached by it at all (not refused here).
 */
export function unreachablePaymentsRule(
  rule: RuleConfig,
  index: number,
  lookbackMs: number,
): ConfigIssue[] {
  if (rule.source !== 'payments') return [];
  const path = `rules[${index}]`;
  const age = rule.where.age;
  if (age?.kind === 'equals') {
    return age.values.flatMap((value, item) => {
      const ms = durationMs(value);
      if (ms < lookbackMs) return [];
      const at = age.values.length === 1 ? '' : `[${item}]`;
      return [
        { path: `${path}.where.age${at}`, message: neverFetched(`"${value}"`, lookbackMs, ms) },
      ];
    });
  }
  const text = age?.kind === 'compare' ? `"${age.op} ${age.value}"` : '';
  const from = age?.kind === 'compare' && (age.op === '>' || age.op === '>=');
  const until = age?.kind === 'compare' && (age.op === '<' || age.op === '<=');
  const youngest = from ? durationMs(age.value) : 0;
  if (youngest >= lookbackMs) {
    return [{ path: `${path}.where.age`, message: neverFetched(text, lookbackMs, youngest) }];
  }
  if (rule.count !== undefined || rule.forMs === 0) return [];
  const oldest = until ? Math.min(durationMs(age.value), lookbackMs) : lookbackMs;
  if (youngest + rule.forMs < oldest) return [];
  const waited = `for ${written(rule.forMs)}`;
  if (oldest < lookbackMs) {
    return [
      {
        path: `${path}.for`,
        message: `${waited} can never be reached: a payment matches only while age is ${text}`,
      },
    ];
  }
  const matches = from ? ` from age ${text}` : '';
  return [
    {
      path: `${path}.for`,
      message: `${waited} can never be reached: a payment matches${matches} only until it is ${LOOKBACK} (${written(lookbackMs)}) old, when it is no longer fetched; raise the lookback above ${written(youngest + rule.forMs)}`,
    },
  ];
}
