import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load';
import { ACK_CALL_MEMORY_MS } from '../../shared/engine/ack-calls';
import { evaluate } from '../../shared/engine/evaluate';
import type { SourceState } from '../../shared/engine/types';
import { readBatch } from '../../shared/records/parse';
import type { PollResult } from '../../shared/records/types';
import { T0, ZONE } from './fixtures';

const config = parseConfig(
  `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+919800000001"] }
  leads: { sms: ["+919800000001", "+919800000002"] }
rules:
  - { name: ringing, source: live_calls, where: { state: Ringing }, notify: [oncall] }
ack: { did: "+918000000099" }
`,
  'telealert.yaml',
);

function poll(rows: readonly Record<string, unknown>[]): PollResult {
  const batch = readBatch('live_calls', rows, ZONE);
  return { ok: true, records: batch.records, skipped: batch.skipped };
}

const call = (callId: string, from: string, did = '+918000000099') => ({
  call_id: callId,
  state: 'Answered',
  did,
  source: from,
});

describe('Function: evaluate (calls to ack.did)', () => {
  it("takes a known caller's call out of the rules and makes it one ack_call event to the caller's channels", () => {
    const result = evaluate(
      config,
      'live_calls',
      poll([
        { ...call('a1', '09800000001'), state: 'Ringing' },
        { call_id: 'c1', state: 'Ringing', did: '+918000000001' },
      ]),
      T0,
    );
    expect(result.notifications.map((n) => [n.rule, n.key, n.channels, n.labels])).toEqual([
      [
        'ack_call',
        'ack_call{call_id=a1}',
        ['oncall', 'leads'],
        { call_id: 'a1', from: '+919800000001' },
      ],
      ['ringing', 'ringing{call_id=c1}', ['oncall'], { call_id: 'c1' }],
    ]);
    expect(result.refusedAckCalls).toBeUndefined();
  });

  it('acknowledges once however many samples see the call, and forgets it after an hour', () => {
    const first = evaluate(config, 'live_calls', poll([call('a1', '+919800000002')]), T0);
    const again = evaluate(
      config,
      'live_calls',
      poll([call('a1', '+919800000002')]),
      T0 + 15_000,
      first.state,
    );
    expect(first.notifications).toHaveLength(1);
    expect(again.notifications).toEqual([]);
    expect(again.state.ackCalls).toEqual({ a1: T0 });
    const later = evaluate(config, 'live_calls', poll([]), T0 + ACK_CALL_MEMORY_MS, again.state);
    expect(later.state).not.toHaveProperty('ackCalls');
  });

  it('counts a call from a number in no channel once and lets it acknowledge nothing', () => {
    const first = evaluate(config, 'live_calls', poll([call('x1', '+919999999999')]), T0);
    const again = evaluate(
      config,
      'live_calls',
      poll([call('x1', '+919999999999')]),
      T0 + 15_000,
      first.state,
    );
    expect(first.notifications).toEqual([]);
    expect(first.refusedAckCalls).toBe(1);
    expect(again.refusedAckCalls).toBeUndefined();
  });

  it('keeps calls to other numbers for the rules, and everything when no ack number is set', () => {
    const result = evaluate(
      config,
      'live_calls',
      poll([{ ...call('c2', '+919800000001', '+918000000001'), state: 'Ringing' }]),
      T0,
    );
    expect(result.notifications.map((n) => n.key)).toEqual(['ringing{call_id=c2}']);
    const { ack: _ack, ...without } = config;
    const plain = evaluate(
      without,
      'live_calls',
      poll([{ ...call('a1', '+919800000001'), state: 'Ringing' }]),
      T0,
    );
    expect(plain.notifications.map((n) => n.key)).toEqual(['ringing{call_id=a1}']);
  });

  it('keeps the calls it remembers through a failed poll', () => {
    const first = evaluate(config, 'live_calls', poll([call('a1', '+919800000001')]), T0);
    const failed = evaluate(
      config,
      'live_calls',
      { ok: false, error: { kind: 'http', status: 500, message: 'HTTP 500' } },
      T0 + 15_000,
      first.state,
    );
    expect((failed.state as SourceState).ackCalls).toEqual({ a1: T0 });
  });
});
