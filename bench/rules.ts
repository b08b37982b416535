import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseConfig } from '../shared/config/load';
import type { Config } from '../shared/types/config';

/**
 * Twenty rules beside the shipped ones, spread over both sources and every operator and field
 * kind a user reaches for: equality, lists, text, phones, durations, money, ages, directions,
 * aggregates with and without groupBy. Like real alert rules they pick out the exceptions
 * (each matches well under 1% of the generated records; the shipped stuck-payment rule
 * matches the generator's ~10% pending payments). Deterministic, so two bench runs compare.
 */
function extraRules(): Record<string, unknown>[] {
  const rules: Record<string, unknown>[] = [];
  const common = { severity: 'warning', notify: ['oncall'] };
  const live: Record<string, unknown>[] = [
    { where: { state: 'Ringing', call_time: '> 00:01:15' } },
    { where: { state: ['Ringing', 'Queued'], direction: 'outbound', call_time: '> 00:01:00' } },
    { where: { state: 'Answered', call_time: '>= 00:05:00' } },
    { where: { did: '+918000000001', state: 'Ringing' }, count: '> 2' },
    { where: { state: 'ringing' }, count: '>= 3', groupBy: ['agent_name'] },
    { where: { destination: '+919999999999', state: 'Ringing' } },
    { where: { age: '> 2m', state: 'Ringing' } },
    { where: { agent_name: '<> nobody', direction: 'inbound' }, count: '> 100' },
    { where: { type: 'click-to-call' }, count: '> 10', groupBy: ['did'] },
    { where: { call_time: '< 00:00:05', state: 'Answered' } },
  ];
  const pay: Record<string, unknown>[] = [
    { where: { status: 'pending', amount_paid: '>= 19950' } },
    { where: { amount_paid: '> 19990', gateway: 'Razorpay' } },
    { where: { amount_paid: '<= 100' } },
    { where: { gateway: ['Instamojo', 'PayU'], status: '<> success' }, count: '> 50' },
    { where: { amount_tax: '>= 3590' } },
    { where: { amount_added: '< 150', status: 'success' } },
    { where: { status: 'pending' }, count: '> 20', groupBy: ['gateway'] },
    { where: { age: '< 10m', amount_paid: '>= 15000' } },
    { where: { payment_id: '<> x' }, count: '< 1' },
    { where: { amount_paid: '<> 199.99', gateway: 'razorpay', status: 'pending', age: '< 5m' } },
  ];
  live.forEach((rule, i) => {
    rules.push({ name: `bench-live-${i}`, source: 'live_calls', ...common, ...rule });
  });
  pay.forEach((rule, i) => {
    rules.push({ name: `bench-pay-${i}`, source: 'payments', ...common, ...rule });
  });
  return rules;
}

/**
 * The shipped `telealert.yaml` plus `extra` (default: all twenty) of the extra rules, validated
 * like any rules file.
 */
export function benchConfig(path = 'telealert.yaml', extra = 20): Config {
  return parseConfig(JSON.stringify(benchConfigData(path, extra)), 'bench-rules.json');
}

/** The same rules as data, before validation (what a JSON rules file holds). */
export function benchConfigData(path = 'telealert.yaml', extra = 20): unknown {
  const data = parse(readFileSync(path, 'utf8')) as { rules: unknown[] };
  data.rules.push(...extraRules().slice(0, extra));
  return data;
}
