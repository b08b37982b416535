import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { FIELDS } from '../../shared/records/fields';

/** The shipped rules file as plain data: the base that structural mutations start from. */
export function shippedRules(text: string): Record<string, unknown> {
  return parse(text) as Record<string, unknown>;
}

const FIELD_NAMES = [
  ...new Set([...Object.keys(FIELDS.live_calls), ...Object.keys(FIELDS.payments)]),
];
const RULE_KEYS = [
  'name',
  'source',
  'where',
  'count',
  'groupBy',
  'for',
  'keepFiring',
  'repeat',
  'resolved',
  'severity',
  'notify',
  'summary',
];

/** Scalars that break naive code: huge and odd numbers, unicode, operator-shaped text. */
export const nastyScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    0,
    -0,
    '1e999999',
    '99999999999999999999999999999999.999999999',
    '> 1e400',
    '>= -0',
    '<> ',
    '> 99:99:99',
    '> 1000000000000d',
    '{count} {nope} {',
    'Ringing',
    'inbound',
    '+918000000001',
    '21-Nov-2026 10:00:00',
    '2026-11-21 10:00:00',
    '00:01:30',
    'नमस्ते 🚨',
    '\u0000',
    '__proto__',
    'constructor',
  ),
  fc.boolean(),
  fc.constant(null),
);

/** Any JSON-ish value, nested a little. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  nastyScalar,
  fc.array(nastyScalar, { maxLength: 4 }),
  fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string()), nastyScalar, {
    maxKeys: 4,
  }),
);

/** A rule that looks like one: real keys and field names, values of any type. */
const plausibleRule = fc.dictionary(
  fc.oneof(fc.constantFrom(...RULE_KEYS), fc.string({ maxLength: 8 })),
  fc.oneof(nastyValue, fc.dictionary(fc.constantFrom(...FIELD_NAMES), nastyValue, { maxKeys: 4 })),
  { maxKeys: 8 },
);

/** Sets `value` at a random top-level or rule key of a copy of `base`. */
function mutate(base: Record<string, unknown>, key: string, value: unknown, ruleIndex: number) {
  const copy = structuredClone(base);
  const rules = copy.rules as Record<string, unknown>[];
  const rule = rules[ruleIndex % rules.length];
  if (rule && RULE_KEYS.includes(key)) rule[key] = value;
  else copy[key] = value;
  return copy;
}

/** The shipped rules with one rule's `where` given one more condition, often a valid one. */
export function mutatedWhere(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.nat(),
      fc.constantFrom(...FIELD_NAMES),
      fc.oneof(
        nastyValue,
        fc
          .tuple(fc.constantFrom('>', '<', '>=', '<=', '<>', '=', ''), nastyScalar)
          .map(([op, value]) => `${op} ${String(value)}`),
      ),
    )
    .map(([index, field, value]) => {
      const copy = structuredClone(base);
      const rules = copy.rules as { where?: Record<string, unknown> }[];
      const rule = rules[index % rules.length];
      if (rule) rule.where = { ...rule.where, [field]: value };
      return stringify(copy);
    });
}

/** Text of a rules file: arbitrary text, JSON-ish data, or the shipped file mutated. */
export function rulesFileText(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.json().map((json) => json),
    nastyValue.map((value) => stringify(value)),
    fc
      .tuple(
        fc.constantFrom('timezone', 'api', 'sources', 'health', 'channels', 'rules', ...RULE_KEYS),
        nastyValue,
        fc.nat(),
      )
      .map(([key, value, index]) => stringify(mutate(base, key, value, index))),
    fc
      .array(plausibleRule, { minLength: 1, maxLength: 3 })
      .map((rules) => stringify({ ...base, rules })),
    mutatedWhere(base),
    fc
      .array(plausibleRule, { minLength: 1, maxLength: 3 })
      .map((rules) => JSON.stringify({ ...base, rules })),
  );
}

const atText = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc
    .date({
      min: new Date('2026-11-21T04:00:00Z'),
      max: new Date('2026-11-21T08:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
  fc.constantFrom('2026-11-21 10:00:00', '2026-11-21T10:00:00+05:30', '+275760-09-13T00:00:00Z'),
  fc.string(),
);

/** A raw record: real field names and random ones, values of any type. */
const rawRecord = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELD_NAMES, 'payment_gateway'), fc.string({ maxLength: 8 })),
  nastyValue,
  { maxKeys: 10 },
);

const LIVE_CALL = {
  id: 101,
  user_id: 7,
  client_id: null,
  call_id: 'c-101',
  direction: 1,
  source: '9876543210',
  type: 'inbound',
  did: '+918000000001',
  destination: '918000000011,918000000012',
  state: 'Ringing',
  channel_id: 'ch-1',
  created_at: '2026-11-21 09:58:00',
  call_time: '00:02:00',
  agent_name: 'Asha',
};
const PAYMENT = {
  id: '9001',
  amount_paid: '250000.00',
  payment_id: '',
  created_at: '21-Nov-2026 09:10:00',
  gateway: 'Razorpay',
  status: 'pending',
  amount_added: 250000.0,
  amount_tax: 0,
};

/** A realistic record of `source` with a few fields replaced or added by anything. */
function driftedRecord(base: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .dictionary(
      fc.oneof(
        fc.constantFrom(...Object.keys(base), 'payment_gateway'),
        fc.string({ maxLength: 8 }),
      ),
      nastyValue,
      { maxKeys: 3 },
    )
    .map((changes) => ({ ...base, ...changes }));
}

const FAILURE_KINDS = ['auth', 'http', 'network', 'timeout', 'body', 'rate-limited'];

/** A line that passes the timeline schema (at filled in later, in order): records or error. */
const plausiblePoll = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.record({
        source: fc.constant('live_calls'),
        records: fc.array(driftedRecord(LIVE_CALL), { maxLength: 8 }),
      }),
      fc.record({
        source: fc.constant('payments'),
        records: fc.array(driftedRecord(PAYMENT), { maxLength: 4 }),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      source: fc.constantFrom('live_calls', 'payments'),
      error: fc.record(
        {
          status: fc.integer({ min: 100, max: 599 }),
          kind: fc.constantFrom(...FAILURE_KINDS),
          message: fc.string({ unit: 'grapheme' }),
        },
        { requiredKeys: [] },
      ),
    }),
  },
);

/** A timeline the schema accepts: polls in time order over two hours, records drifted. */
export const plausibleTimelineText: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 7_200_000 }), plausiblePoll), { maxLength: 30 })
  .map((polls) =>
    polls
      .sort(([a], [b]) => a - b)
      .map(([offsetMs, poll]) =>
        JSON.stringify({
          at: new Date(Date.UTC(2026, 10, 21, 4, 0) + offsetMs).toISOString(),
          ...poll,
        }),
      )
      .join('\n'),
  );

/** One timeline line that is plausible JSON (records or error), or anything else. */
/** One timeline line that is plausible JSON (records or error), or anything else. */
const timelineLine: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          at: atText,
          source: fc.oneof(fc.constantFrom('live_calls', 'payments'), fc.string()),
          records: fc.oneof(fc.array(rawRecord, { maxLength: 5 }), nastyValue),
          error: fc.oneof(
            fc.record(
              {
                status: fc.oneof(fc.integer(), fc.constant(500)),
                kind: fc.string(),
                message: fc.string(),
              },
              { requiredKeys: [] },
            ),
            nastyValue,
          ),
        },
        { requiredKeys: ['at', 'source'] },
      )
      .map((line) => JSON.stringify(line)),
  },
  { weight: 1, arbitrary: nastyValue.map((value) => JSON.stringify(value) ?? 'undefined') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
);

/** A timeline file's text: a few lines of the above. */
export const timelineText: fc.Arbitrary<string> = fc
  .array(timelineLine, { maxLength: 8 })
  .map((lines) => lines.join('\n'));
