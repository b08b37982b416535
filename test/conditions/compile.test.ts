import { describe, expect, it } from 'vitest';
import {
  compileCount,
  compileWhere,
  conditionText,
  fieldDisplay,
} from '../../shared/conditions/compile';
import type { ApiRecord } from '../../shared/records/types';
import type { SourceName } from '../../shared/types/config';
import { call, cond, payment, T0, ZONE } from '../engine/fixtures';

function matches(
  source: SourceName,
  field: string,
  condition: string | readonly string[],
  record: ApiRecord,
  nowMs = T0,
): boolean {
  return compileWhere(source, { [field]: cond(condition) }, ZONE)(record, nowMs);
}

describe('Function: compileWhere', () => {
  const cases: [string, SourceName, string, string | string[], ApiRecord, boolean][] = [
    ['number >', 'live_calls', 'id', '> 5', call('c', { id: '6' }), true],
    ['number <=', 'live_calls', 'id', '<= 5', call('c', { id: '6' }), false],
    ['number <>', 'live_calls', 'id', '<> 5', call('c', { id: '5' }), false],
    [
      'duration >= in HH:MM:SS',
      'live_calls',
      'call_time',
      '>= 00:02:00',
      call('c', { call_time: 120 }),
      true,
    ],
    [
      'duration > in units',
      'live_calls',
      'call_time',
      '> 2m',
      call('c', { call_time: 120 }),
      false,
    ],
    [
      'duration < bare seconds',
      'live_calls',
      'call_time',
      '< 121',
      call('c', { call_time: 120 }),
      true,
    ],
    [
      'money >= exact',
      'payments',
      'amount_paid',
      '>= 100000.1',
      payment('p', { amount_paid: '100000.1' }),
      true,
    ],
    [
      'money 100000.10 >= 100000.1',
      'payments',
      'amount_paid',
      '>= 100000.10',
      payment('p', { amount_paid: '100000.1' }),
      true,
    ],
    [
      'money > exact, no drift',
      'payments',
      'amount_paid',
      '> 100000.1',
      payment('p', { amount_paid: '100000.1' }),
      false,
    ],
    ['money <', 'payments', 'amount_paid', '< 0.3', payment('p', { amount_paid: '0.29' }), true],
    ['money <>', 'payments', 'amount_paid', '<> 5.00', payment('p', { amount_paid: '5' }), false],
    [
      'money equality',
      'payments',
      'amount_added',
      '5.0',
      payment('p', { amount_added: '5' }),
      true,
    ],
    [
      'text equality ignores case',
      'live_calls',
      'state',
      'Ringing',
      call('c', { state: 'RINGING' }),
      true,
    ],
    [
      'text any of',
      'live_calls',
      'state',
      ['Answered', 'ringing'],
      call('c', { state: 'Ringing' }),
      true,
    ],
    [
      'text any of, none',
      'live_calls',
      'state',
      ['Answered', 'Queued'],
      call('c', { state: 'Ringing' }),
      false,
    ],
    ['text <>', 'live_calls', 'state', '<> answered', call('c', { state: 'Answered' }), false],
    [
      'text ordering is lower-cased',
      'live_calls',
      'agent_name',
      '< b',
      call('c', { agent_name: 'Asha' }),
      true,
    ],
    ['text >=', 'live_calls', 'agent_name', '>= Z', call('c', { agent_name: 'asha' }), false],
    [
      'phone in another format',
      'live_calls',
      'did',
      '08000000001',
      call('c', { did: '+918000000001' }),
      true,
    ],
    ['phone <>', 'live_calls', 'did', '<> 918000000002', call('c', { did: '+918000000001' }), true],
    [
      'phone list: any element equals',
      'live_calls',
      'destination',
      '8000000002',
      call('c', { destination: ['+918000000001', '+918000000002'] }),
      true,
    ],
    [
      'phone list: <> holds when none matches',
      'live_calls',
      'destination',
      '<> 8000000003',
      call('c', { destination: ['+918000000001', '+918000000002'] }),
      true,
    ],
    [
      'phone list: <> fails when one matches',
      'live_calls',
      'destination',
      '<> 8000000002',
      call('c', { destination: ['+918000000001', '+918000000002'] }),
      false,
    ],
    ['direction by name', 'live_calls', 'direction', 'inbound', call('c', { direction: 1 }), true],
    ['direction by number', 'live_calls', 'direction', '2', call('c', { direction: 1 }), false],
    ['direction <>', 'live_calls', 'direction', '<> outbound', call('c', { direction: 1 }), true],
    ['missing field, equality', 'live_calls', 'agent_name', 'asha', call('c'), false],
    [
      'missing field, <> does not hold either',
      'live_calls',
      'agent_name',
      '<> asha',
      call('c'),
      false,
    ],
    [
      'unreadable value never holds',
      'live_calls',
      'call_time',
      '> soon',
      call('c', { call_time: 120 }),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, source, field, condition, record, expected) => {
    expect(matches(source, field, condition, record)).toBe(expected);
  });

  it('reads age as evaluation time minus created_at', () => {
    const record = payment('p', {}, T0 - 31 * 60_000);
    expect(matches('payments', 'age', '> 30m', record)).toBe(true);
    expect(matches('payments', 'age', '> 30m', record, T0 - 2 * 60_000)).toBe(false);
  });

  it('never holds age for a record without created_at', () => {
    expect(matches('payments', 'age', '>= 0s', payment('p'))).toBe(false);
  });

  it('compares created_at with a timestamp read in the zone', () => {
    const record = call('c', {}, Date.parse('2026-11-21T10:00:00+05:30'));
    expect(matches('live_calls', 'created_at', '>= 2026-11-21 10:00:00', record)).toBe(true);
    expect(matches('live_calls', 'created_at', '> 2026-11-21 10:00:00', record)).toBe(false);
  });

  it('requires every condition to hold', () => {
    const where = compileWhere(
      'live_calls',
      { state: cond('Ringing'), call_time: cond('> 60') },
      ZONE,
    );
    expect(where(call('a', { call_time: 61 }), T0)).toBe(true);
    expect(where(call('b', { call_time: 60 }), T0)).toBe(false);
    expect(where(call('c', { state: 'Answered', call_time: 61 }), T0)).toBe(false);
  });
});

describe('Function: compileCount', () => {
  it.each([
    ['> 5', 6, true],
    ['> 5', 5, false],
    ['< 1', 0, true],
    ['<> 0', 0, false],
    ['3', 3, true],
  ] as const)('%s with %d is %s', (condition, count, expected) => {
    expect(compileCount(cond(condition))(count)).toBe(expected);
  });
});

describe('Function: fieldDisplay', () => {
  it('shows money, times, durations and direction for people', () => {
    const record = payment('p', { amount_paid: '150000', direction: 2 }, T0);
    expect(fieldDisplay(record, 'amount_paid', T0, ZONE)).toBe('150000.00');
    expect(fieldDisplay(record, 'created_at', T0, ZONE)).toBe('2026-11-21 10:00:00 IST');
    expect(fieldDisplay(record, 'age', T0 + 125 * 60_000, ZONE)).toBe('2h 5m');
    expect(fieldDisplay(call('c', { call_time: 130 }), 'call_time', T0, ZONE)).toBe('00:02:10');
    expect(fieldDisplay(call('c', { direction: 1 }), 'direction', T0, ZONE)).toBe('inbound');
    expect(fieldDisplay(call('c'), 'agent_name', T0, ZONE)).toBe('');
  });
});

describe('Function: conditionText', () => {
  it('writes a condition back as a person reads it', () => {
    expect(conditionText(cond('> 5'))).toBe('> 5');
    expect(conditionText(cond(['a', 'b']))).toBe('any of a, b');
  });
});
