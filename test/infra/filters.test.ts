import type { SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { memberFilter, severityFilter, smsFilter, withoutHandoffs } from '../../infra/topics';

/** A filter policy as SNS holds it. */
function policy(filter: Record<string, SubscriptionFilter>): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(filter).map(([name, value]) => [name, value.conditions]),
  );
}

type Branch = Record<string, unknown[]>;

/** The `$or` branches of a policy, each with the keys beside it: the paths SNS evaluates. */
function paths(held: Record<string, unknown[]>): Branch[] {
  const { $or, ...rest } = held;
  if ($or === undefined) return [rest];
  return ($or as Branch[]).map((branch) => ({ ...rest, ...branch }));
}

/**
 * moto 5.2.1's count of a policy's combinations (`_validate_filter_policy`), stricter than
 * SNS's: every list multiplies by its length times its depth (2 inside `$or`), and the `$or`
 * by its branches, where SNS adds up the branches' paths.
 */
function motoCombinations(held: Record<string, unknown[]>, depth = 1): number {
  let combinations = 1;
  for (const [name, values] of Object.entries(held)) {
    if (name === '$or') {
      for (const branch of values as Branch[]) combinations *= motoCombinations(branch, depth + 1);
    }
    combinations *= values.length * depth;
  }
  return combinations;
}

/**
 * SNS's limits on a filter policy (the developer guide's "Filter policy constraints"): at most
 * five attribute names, at most 150 combinations of values, `$or` not nested; and moto's
 * stricter count (the e2e subscribes the stack's policies on moto).
 */
function expectWithinSnsLimits(held: Record<string, unknown[]>): void {
  const names = new Set(paths(held).flatMap((branch) => Object.keys(branch)));
  expect(names.size).toBeLessThanOrEqual(5);
  const combinations = paths(held)
    .map((branch) => Object.values(branch).reduce((n, values) => n * values.length, 1))
    .reduce((sum, n) => sum + n, 0);
  expect(combinations).toBeLessThanOrEqual(150);
  expect(motoCombinations(held)).toBeLessThanOrEqual(150);
  for (const branch of paths(held)) expect(Object.keys(branch)).not.toContain('$or');
}

const NUMBER = '+919800000001';
const TO_NUMBER = { to: [NUMBER] };
const TO_NOBODY = { to: [{ exists: false }] };

describe('Function: smsFilter, a fixed number of a channel', () => {
  it('admits a message with an SMS body addressed to this number, or to nobody', () => {
    expect(policy(smsFilter(NUMBER, undefined))).toEqual({
      sms: ['yes'],
      $or: [TO_NUMBER, TO_NOBODY],
    });
  });

  it("holds a message addressed to nobody to the channel's minSeverity, never one to the number itself", () => {
    expect(policy(smsFilter(NUMBER, severityFilter('warning')))).toEqual({
      sms: ['yes'],
      $or: [TO_NUMBER, { ...TO_NOBODY, severity: ['warning', 'critical'] }],
    });
  });

  it("on a rotation's channel, keeps the fixed list's numbers from the handoffs", () => {
    expect(policy(smsFilter(NUMBER, withoutHandoffs(severityFilter('critical'))))).toEqual({
      sms: ['yes'],
      $or: [
        TO_NUMBER,
        { ...TO_NOBODY, severity: ['critical'], kind: [{ 'anything-but': ['handoff'] }] },
      ],
    });
  });
});

describe('Function: memberFilter, a member of a rotation', () => {
  it('admits what reaches them (oncall): their handoff and their own call’s confirmation whatever the severity, else at minSeverity', () => {
    const held = policy(memberFilter('asha', 'info', true));
    expect(held).toEqual({
      oncall: ['asha'],
      sms: ['yes'],
      $or: [{ kind: ['handoff', 'ack'] }, { severity: ['info', 'warning', 'critical'] }],
    });
    expectWithinSnsLimits(held);
    expect(policy(memberFilter('asha', undefined, true))).toEqual({
      oncall: ['asha'],
      sms: ['yes'],
    });
  });

  it('routes their email on oncall alone, an SMS body not required', () => {
    expect(policy(memberFilter('asha', 'critical', false))).toEqual({
      oncall: ['asha'],
      $or: [{ kind: ['handoff', 'ack'] }, { severity: ['critical'] }],
    });
  });
});

describe('Function: smsFilter, within what SNS and moto take', () => {
  it('stays within both for every minSeverity, on a rotation’s channel too', () => {
    for (const min of ['info', 'warning', 'critical'] as const) {
      expectWithinSnsLimits(policy(smsFilter(NUMBER, severityFilter(min))));
      expectWithinSnsLimits(policy(smsFilter(NUMBER, withoutHandoffs(severityFilter(min)))));
    }
  });
});
