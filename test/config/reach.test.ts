import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';

/** A rules file with one rule of `source` whose body adds `rule`, and `payments` settings. */
function file(rule: string, payments = '{}', source = 'payments'): string {
  return `
api: { baseUrl: https://api.example.com/, tokenParameter: /telealert/api-token }
sources: { payments: ${payments} }
channels:
  oncall: { email: [oncall@example.com] }
rules:
  - { name: ok, source: live_calls, where: { state: Ringing }, notify: [oncall] }
  - { name: r, source: ${source}, notify: [oncall], ${rule} }
`;
}

/** The issues of a rules file, `[]` when it is valid. */
function issuesOf(text: string): string[] {
  try {
    parseConfig(text, 'telealert.yaml');
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.split('\n');
  }
}

const PAST = 'payments older than sources.payments.lookback (1d) are never fetched';

describe('Config: payments rules that could never fire are refused', () => {
  it.each([
    [
      'where: { age: "> 1d" }',
      `telealert.yaml: rules[1].where.age: "> 1d" can never hold: ${PAST}; raise the lookback above 1d`,
    ],
    [
      'where: { age: ">= 24h" }',
      `telealert.yaml: rules[1].where.age: ">= 24h" can never hold: ${PAST}; raise the lookback above 1d`,
    ],
    [
      'where: { age: "> 30h" }, count: "> 2"',
      `telealert.yaml: rules[1].where.age: "> 30h" can never hold: ${PAST}; raise the lookback above 1d 6h`,
    ],
    [
      'where: { age: [1h, 2d] }',
      `telealert.yaml: rules[1].where.age[1]: "2d" can never hold: ${PAST}; raise the lookback above 2d`,
    ],
    [
      'where: { status: pending }, for: 1d',
      'telealert.yaml: rules[1].for: for 1d can never be reached: a payment matches only until it is sources.payments.lookback (1d) old, when it is no longer fetched; raise the lookback above 1d',
    ],
    [
      'where: { age: "> 23h" }, for: 1h',
      'telealert.yaml: rules[1].for: for 1h can never be reached: a payment matches from age "> 23h" only until it is sources.payments.lookback (1d) old, when it is no longer fetched; raise the lookback above 1d',
    ],
    [
      'where: { age: "< 10m" }, for: 15m',
      'telealert.yaml: rules[1].for: for 15m can never be reached: a payment matches only while age is "< 10m"',
    ],
  ])('refuses %s, naming what to change', (rule, message) => {
    expect(issuesOf(file(rule))).toEqual([message]);
  });

  it('reports each list value past the lookback', () => {
    expect(issuesOf(file('where: { age: [2d, 3d] }'))).toEqual([
      `telealert.yaml: rules[1].where.age[0]: "2d" can never hold: ${PAST}; raise the lookback above 2d`,
      `telealert.yaml: rules[1].where.age[1]: "3d" can never hold: ${PAST}; raise the lookback above 3d`,
    ]);
  });

  it.each([
    ['where: { age: "> 23h" }', '{}'],
    ['where: { age: "> 23h" }, for: 59m', '{}'],
    ['where: { age: "> 1d" }', '{ lookback: 2d }'],
    ['where: { age: "< 2d" }', '{}'],
    ['where: { age: "<= 2d" }, for: 23h', '{}'],
    ['where: { age: "<> 2d" }', '{}'],
    ['where: { status: pending }, for: 23h', '{}'],
    ['where: { status: pending }, count: "> 5", for: 3d', '{}'],
  ])('accepts %s with payments %s: it can fire', (rule, payments) => {
    expect(issuesOf(file(rule, payments))).toEqual([]);
  });

  it('leaves live calls alone: they are a snapshot, not fetched by age', () => {
    expect(issuesOf(file('where: { age: "> 2d" }, for: 3d', '{}', 'live_calls'))).toEqual([]);
  });
});
