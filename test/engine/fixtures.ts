import { RecordBatch } from '../../shared/records/batch';
import type { ApiRecord, FieldValue, PollResult } from '../../shared/records/types';
import {
  type Condition,
  type Config,
  OPERATORS,
  type Operator,
  type RuleConfig,
} from '../../shared/types/config';

export const ZONE = 'Asia/Kolkata';
export const MINUTE = 60_000;
/** 2026-11-21 10:00:00 IST. */
export const T0 = Date.parse('2026-11-21T10:00:00+05:30');

/** A condition as the rules file writes it: `"> 5"` compares, a scalar or a list is equality. */
export function cond(value: string | number | readonly (string | number)[]): Condition {
  if (Array.isArray(value)) return { kind: 'equals', values: value.map(String) };
  const text = String(value);
  const op = OPERATORS.find((candidate) => text.startsWith(candidate));
  return op
    ? { kind: 'compare', op: op as Operator, value: text.slice(op.length).trim() }
    : { kind: 'equals', values: [text] };
}

export interface RuleInput extends Partial<Omit<RuleConfig, 'where' | 'count'>> {
  readonly name: string;
  readonly where?: Record<string, string | number | readonly (string | number)[]>;
  readonly count?: string;
}

/** A validated rule with the contract's defaults. */
export function rule(input: RuleInput): RuleConfig {
  const { where = {}, count, ...rest } = input;
  return {
    source: 'live_calls',
    groupBy: [],
    forMs: 0,
    keepFiringMs: 0,
    resolved: true,
    severity: 'warning',
    notify: ['oncall'],
    ...rest,
    where: Object.fromEntries(Object.entries(where).map(([field, value]) => [field, cond(value)])),
    ...(count === undefined ? {} : { count: cond(count) }),
  };
}

/** The contract's default grouping of a channel. */
export const DEFAULT_GROUP = { by: ['rule'], waitMs: 0, intervalMs: 5 * MINUTE } as const;

/** A validated config with the contract's defaults around the given rules. */
export function config(rules: readonly RuleInput[], overrides: Partial<Config> = {}): Config {
  return {
    timezone: ZONE,
    api: { baseUrl: 'https://api.example.com', tokenParameter: '/t', timeoutMs: 10_000 },
    sources: {
      live_calls: { everyMs: MINUTE, samples: 1, query: {} },
      payments: { everyMs: 5 * MINUTE, lookbackMs: 24 * 60 * MINUTE },
    },
    health: { after: 3, notify: ['oncall'] },
    channels: {
      oncall: {
        name: 'oncall',
        sms: ['+12025550100'],
        email: ['oncall@example.com'],
        group: DEFAULT_GROUP,
        smsPerHour: 20,
      },
      finance: {
        name: 'finance',
        sms: [],
        email: ['finance@example.com'],
        group: DEFAULT_GROUP,
        smsPerHour: 20,
      },
    },
    rules: rules.map(rule),
    ...overrides,
  };
}

/** A normalised live call record (as `parseRecords` would make it). */
export function call(
  callId: string,
  fields: Record<string, FieldValue> = {},
  createdAtMs?: number,
): ApiRecord {
  const all = { call_id: callId, state: 'Ringing', ...fields };
  return {
    source: 'live_calls',
    key: callId,
    ...(createdAtMs === undefined ? {} : { createdAtMs }),
    fields: createdAtMs === undefined ? all : { created_at: createdAtMs, ...all },
    raw: all,
  };
}

/** A normalised payment record. */
export function payment(
  id: string,
  fields: Record<string, FieldValue> = {},
  createdAtMs?: number,
): ApiRecord {
  const all = { id, status: 'pending', amount_paid: '100', ...fields };
  return {
    source: 'payments',
    key: id,
    ...(createdAtMs === undefined ? {} : { createdAtMs }),
    fields: createdAtMs === undefined ? all : { created_at: createdAtMs, ...all },
    raw: all,
  };
}

export function ok(...records: ApiRecord[]): PollResult {
  return { ok: true, records: RecordBatch.of(records), skipped: 0 };
}

export function failed(status = 500): PollResult {
  return { ok: false, error: { kind: 'http', status, message: `HTTP ${status}` } };
}
