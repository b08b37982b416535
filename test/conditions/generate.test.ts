import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileWhere, compileWhereClosures } from '../../shared/conditions/compile';
import { readConditionValue } from '../../shared/conditions/values';
import type { ApiRecord } from '../../shared/records/types';
import { OPERATORS } from '../../shared/types/config';
import { cond, T0, ZONE } from '../engine/fixtures';

/** Field values as the parser leaves them, plus the odd shapes a schema fallback can give. */
const value = fc.oneof(
  fc.constantFrom('Ringing', 'ringing', ' RINGING ', 'Answered', '', 'İ', 'pending'),
  fc.constantFrom('100000.1', '99.5', '1500', '-3', '0', '00:01:00', 'x'),
  fc.constantFrom('+918000000001', '8000000001', '+919999999999'),
  fc.integer({ min: -5, max: 200 }),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  fc.constant(['+918000000001', '+918000000002']),
  fc.constant(undefined),
);

/** Condition texts of every shape, readable or not for the field they land on. */
const conditionText = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...OPERATORS),
      fc.constantFrom(
        '5',
        '100000.10',
        'ringing',
        '1m',
        'inbound',
        '8000000001',
        '+918000000002',
        'zz',
      ),
    )
    .map(([op, v]) => `${op} ${v}`),
  fc.constantFrom('Ringing', 'pending', '1', 'outbound', '8000000001', '99.50', '00:00:45'),
  fc.constant(['ringing', 'answered']),
);

const liveFields = [
  'state',
  'call_time',
  'direction',
  'did',
  'destination',
  'agent_name',
  'age',
  'id',
  'unknown_field',
];
const paymentFields = [
  'amount_paid',
  'status',
  'gateway',
  'amount_tax',
  'created_at',
  'age',
  'payment_id',
];

function record(fields: Record<string, unknown>, createdAtMs: number | undefined): ApiRecord {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    source: 'live_calls',
    key: 'k',
    fields: defined as ApiRecord['fields'],
    raw: {},
    ...(createdAtMs === undefined ? {} : { createdAtMs }),
  };
}

describe('Function: compileWhere (generated code)', () => {
  for (const [source, fields] of [
    ['live_calls', liveFields],
    ['payments', paymentFields],
  ] as const) {
    it(`answers as the closures do for any ${source} where and record`, () => {
      const where = fc.dictionary(fc.constantFrom(...fields), conditionText, { maxKeys: 4 });
      const fieldValues = fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 6 });
      const created = fc.option(fc.integer({ min: T0 - 3_600_000, max: T0 }), { nil: undefined });
      fc.assert(
        fc.property(where, fieldValues, created, (conditions, values, createdAtMs) => {
          const parsed = Object.fromEntries(
            Object.entries(conditions).map(([field, text]) => [field, cond(text)]),
          );
          const generated = compileWhere(source, parsed, ZONE);
          const closures = compileWhereClosures(source, parsed, ZONE);
          const subject = record(values, createdAtMs);
          expect(generated(subject, T0)).toBe(closures(subject, T0));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('keeps a field name or value that looks like code as data', () => {
    const where = compileWhere(
      'payments',
      { status: cond("'); throw new Error('x'); ('"), 'a\'b"c': cond('1') },
      ZONE,
    );
    expect(where(record({ status: "'); throw new Error('x'); ('" }, T0), T0)).toBe(false);
    expect(where(record({ status: "'); throw new Error('x'); ('", 'a\'b"c': '1' }, T0), T0)).toBe(
      true,
    );
  });

  it('never holds <> against a value it cannot compare', () => {
    for (const [field, value] of [
      ['call_time', 'x'],
      ['direction', 0],
    ] as const) {
      const where = compileWhere('live_calls', { [field]: cond('<> 5') }, ZONE);
      expect(where(record({ [field]: value }, T0), T0)).toBe(false);
    }
  });

  it('reads no duration too long for a double, so no rule compares against Infinity', () => {
    expect(readConditionValue('duration', '9'.repeat(400))).toBeUndefined();
    expect(readConditionValue('duration', `${'9'.repeat(400)}:00:00`)).toBeUndefined();
    const where = compileWhere('live_calls', { age: cond(`> ${'9'.repeat(400)}`) }, ZONE);
    expect(where(record({}, T0 - 60_000), T0)).toBe(false);
  });
});
