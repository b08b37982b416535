import { join } from 'node:path';
import { loadConfigFile } from '../../shared/config/load';
import type { MessageInput } from '../../shared/messages/types';
import type { RuleConfig } from '../../shared/types/config';

export const config = loadConfigFile(join(import.meta.dirname, '../../telealert.yaml'));

export function rule(name: string): RuleConfig {
  const found = config.rules.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no rule ${name} in telealert.yaml`);
  return found;
}

/** 2026-11-21 10:01:00 IST. */
export const AT = Date.parse('2026-11-21T04:31:00Z');

export const ringingFiring: MessageInput = {
  config,
  rule: rule('too-many-ringing'),
  ruleName: 'too-many-ringing',
  source: 'live_calls',
  status: 'firing',
  severity: 'critical',
  key: 'too-many-ringing{did=+918000000001}',
  labels: { did: '+918000000001' },
  value: 6,
  context: { did: '+918000000001', count: '6', threshold: '> 5', ids: 'c1, c2, c3, c4, c5, c6' },
  atMs: AT,
  activeAtMs: AT - 60_000,
  firedAtMs: AT,
};

export const longCallFiring: MessageInput = {
  config,
  rule: rule('call-ringing-too-long'),
  ruleName: 'call-ringing-too-long',
  source: 'live_calls',
  status: 'firing',
  severity: 'warning',
  key: 'call-ringing-too-long{call_id=1732081234.5678}',
  labels: { call_id: '1732081234.5678' },
  context: {
    call_id: '1732081234.5678',
    state: 'Ringing',
    direction: 'inbound',
    source: '+919812345678',
    did: '+918000000001',
    call_time: '00:02:10',
    agent_name: 'राजेश कुमार',
    age: '2m 10s',
  },
  atMs: AT,
  activeAtMs: AT,
  firedAtMs: AT,
};

export const paymentResolved: MessageInput = {
  config,
  rule: rule('payment-stuck-pending'),
  ruleName: 'payment-stuck-pending',
  source: 'payments',
  status: 'resolved',
  severity: 'warning',
  key: 'payment-stuck-pending{id=98123}',
  labels: { id: '98123' },
  context: {
    id: '98123',
    amount_paid: '1499.50',
    status: 'success',
    gateway: 'Razorpay',
    payment_id: 'pay_N1x2y3',
    created_at: '2026-11-21 09:10:00 IST',
    age: '51m',
  },
  atMs: AT,
  activeAtMs: AT - 20 * 60_000,
  firedAtMs: AT - 20 * 60_000,
};

export const sourceUnavailable: MessageInput = {
  config,
  rule: undefined,
  ruleName: 'source_unavailable',
  source: 'payments',
  status: 'firing',
  severity: 'critical',
  key: 'source_unavailable{source=payments}',
  labels: { source: 'payments' },
  context: { kind: 'auth', status: '403', message: 'token rejected', failures: '3' },
  atMs: AT,
  activeAtMs: AT,
  firedAtMs: AT,
};
