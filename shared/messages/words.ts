import type { Condition, Operator, RuleConfig, SourceName } from '../types/config';
import { onOneLine } from './display';
import type { MessageInput } from './types';

/** The built-in alert raised when a source keeps failing (contract section 3). */
export const SOURCE_UNAVAILABLE = 'source_unavailable';

const OP_WORDS: Readonly<Record<Operator, string>> = {
  '>': 'is more than',
  '<': 'is less than',
  '>=': 'is at least',
  '<=': 'is at most',
  '<>': 'is not',
};

export const RECORD_NOUN: Readonly<Record<SourceName, string>> = {
  live_calls: 'calls',
  payments: 'payments',
};

/** `state is Ringing`, `gateway is one of razorpay, instamojo`, `age is more than 30m`. */
export function conditionWords(field: string, condition: Condition): string {
  if (condition.kind === 'compare') return `${field} ${OP_WORDS[condition.op]} ${condition.value}`;
  const [only] = condition.values;
  return condition.values.length === 1
    ? `${field} is ${only}`
    : `${field} is one of ${condition.values.join(', ')}`;
}

/** `> 5`, `= 3`, `in 1, 2`: a condition's threshold, for "value vs threshold". */
export function thresholdText(condition: Condition): string {
  if (condition.kind === 'compare') return `${condition.op} ${condition.value}`;
  return condition.values.length === 1
    ? `= ${condition.values[0]}`
    : `in ${condition.values.join(', ')}`;
}

/**
 * What an aggregate rule counts, in one word: the value of its only equality condition
 * (`ringing` for `state: Ringing`), else `matching`.
 */
export function countedNoun(rule: RuleConfig): string {
  const conditions = Object.values(rule.where);
  const [first] = conditions;
  if (conditions.length === 1 && first?.kind === 'equals' && first.values.length === 1) {
    return (first.values[0] ?? 'matching').toLowerCase();
  }
  return 'matching';
}

/** `6 ringing > 5`: the count against the rule's threshold. */
export function aggregateValue(rule: RuleConfig, input: MessageInput): string {
  const value = input.value ?? Number(input.context.count ?? 0);
  const threshold = rule.count ? ` ${thresholdText(rule.count)}` : '';
  return input.status === 'firing'
    ? `${value} ${countedNoun(rule)}${threshold}`
    : `${value} ${countedNoun(rule)} now, alert at${threshold}`;
}

/** `call_time 00:02:10 > 00:01:30`: each comparison of a per-record rule, with the record's value. */
export function recordValue(rule: RuleConfig, input: MessageInput): string {
  return Object.entries(rule.where)
    .filter(([, condition]) => condition.kind === 'compare')
    .map(([field, condition]) => {
      const actual = input.context[field];
      return `${field} ${actual === undefined ? '' : `${actual} `}${thresholdText(condition)}`;
    })
    .join(', ');
}

/**
 * A group's value as the sms and subject show it: a record without the field (or with it
 * empty) forms a group of its own, which reads `did (empty)` rather than a bare `did `.
 */
function groupValue(value: string): string {
  return value === '' ? '(empty)' : value;
}

/** The record or group the alert is about, most telling part first. */
export function identity(input: MessageInput): string {
  const { context, labels } = input;
  if (input.rule === undefined) {
    // A rule the rules file no longer has (`retired.ts`): its labels. Built-in alerts: none.
    if (input.reason === undefined) return '';
    return Object.entries(labels)
      .map(([name, value]) => `${name} ${onOneLine(value)}`)
      .join(', ');
  }
  if (input.rule.count !== undefined) {
    return Object.entries(labels)
      .map(([name, value]) => `${name} ${groupValue(value)}`)
      .join(', ');
  }
  if (input.source === 'payments') {
    const parts = [
      `payment ${labels.id ?? context.id ?? '?'}`,
      context.amount_paid,
      context.gateway,
    ];
    return parts.filter((part) => part !== undefined && part !== '').join(' ');
  }
  const parts = [
    `call ${labels.call_id ?? context.call_id ?? '?'}`,
    context.did === undefined || context.did === '' ? undefined : `did ${context.did}`,
    context.agent_name,
  ];
  return parts.filter((part) => part !== undefined && part !== '').join(' ');
}

/** Values a `summary` template may name (see `placeholdersFor`). */
export function templateValues(input: MessageInput): Record<string, string> {
  const rule = input.rule;
  const values: Record<string, string> = {
    ...input.context,
    ...input.labels,
    rule: input.ruleName,
    severity: input.severity,
  };
  if (rule?.count !== undefined) {
    const count = String(input.value ?? input.context.count ?? '');
    values.count = count;
    values.value = count;
    values.threshold = thresholdText(rule.count);
  }
  return values;
}
