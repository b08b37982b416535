import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileWhereClosures } from '../../shared/conditions/compile';
import { MAX_FOLDED } from '../../shared/conditions/scan';
import { compileRule, type Observation } from '../../shared/engine/aggregate';
import { Observations } from '../../shared/engine/collectors';
import { observeAll } from '../../shared/engine/observe';
import { alertKey } from '../../shared/engine/state';
import { usedFields } from '../../shared/engine/used-fields';
import { RecordBatch } from '../../shared/records/batch';
import { parseRecords, readBatch } from '../../shared/records/parse';
import type { ApiRecord } from '../../shared/records/types';
import { OPERATORS, type RuleConfig } from '../../shared/types/config';
import { config, rule, T0, ZONE } from './fixtures';

/** Rules of every shape the scan generates: per record, counted, grouped, never matching. */
const CONFIG = config([
  { name: 'ringing', where: { state: 'Ringing', call_time: '> 20s' } },
  { name: 'any-state', where: { state: ['ringing', 'queued'] } },
  { name: 'not-answered', where: { state: '<> answered' }, count: '>= 2', groupBy: ['did'] },
  {
    name: 'by-agent',
    where: { direction: 'inbound' },
    count: '> 0',
    groupBy: ['agent_name', 'did'],
  },
  { name: 'none', where: {}, count: '< 3' },
  { name: 'phones', where: { destination: '8000000011', age: '< 1h' } },
  { name: 'unreadable', where: { call_time: '> soon' } },
  { name: 'did-any', where: { did: ['8000000001', '+918000000002'] } },
  { name: 'did-not', where: { did: '<> 8000000001', state: '<> answered' } },
  { name: 'destination-not', where: { destination: '<> 8000000012' }, count: '>= 1' },
  { name: 'destination-any', where: { destination: ['8000000099', '8000000012'] } },
]);

const value = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -1, max: 90 }),
  fc.constant(null),
);
const liveCall = fc.record(
  {
    call_id: fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', 'e'), value),
    state: fc.oneof(fc.constantFrom('Ringing', 'RINGING ', 'Answered', 'queued', ''), value),
    did: fc.oneof(fc.constantFrom('8000000001', '+918000000002', 918000000001), value),
    agent_name: fc.oneof(fc.constantFrom('Asha', 'ASHA', 'Ravi'), value),
    direction: fc.oneof(fc.constantFrom(1, 2, 'inbound', 'Outbound'), value),
    call_time: fc.oneof(fc.constantFrom('00:00:10', '00:01:00', 45), value),
    destination: fc.oneof(
      fc.constantFrom('8000000011,8000000012', '+918000000011', ['08000000012', 8000000013]),
      value,
    ),
    created_at: fc.oneof(fc.constantFrom('2026-11-21 09:59:00', '2026-11-21 08:00:00'), value),
  },
  { requiredKeys: [] },
);

/** A compiled rule, its `where` from closures when `closures` (the reference path). */
function interpretedRule(closures: boolean, r: RuleConfig) {
  const compiled = compileRule(r, ZONE);
  return closures
    ? { ...compiled, where: compileWhereClosures(r.source, r.where, ZONE) }
    : compiled;
}

function brief(observations: Map<string, Observation>[]) {
  return observations.map((byKey) =>
    [...byKey.values()]
      .map((o) => ({ key: o.key, holds: o.holds, value: o.value, labels: o.labels }))
      .sort((a, b) => (a.key < b.key ? -1 : 1)),
  );
}

/**
 * Payments `rows` observed by the generated scan over the records the poller reads (money
 * literals searched in the text) and by the interpreted rules over parsed records: the same.
 */
function expectSameAsInterpreted(
  observed: (closures: boolean) => Parameters<typeof observeAll>[0],
  rows: Record<string, unknown>[],
): void {
  const raw = observeAll(observed(false), readBatch('payments', rows, ZONE).records, T0, ZONE);
  const records = RecordBatch.of(parseRecords('payments', rows, ZONE).records);
  const reference = observeAll(observed(true), records, T0, ZONE, { generated: false });
  expect(brief(raw)).toEqual(brief(reference));
}

/**
 * The time the heavier properties may take: each run generates and compiles a scan for fresh
 * rules, and thousands of runs take ~2 s alone but several times vitest's 20 s default on a
 * busy 2-core machine. A limit to catch a hang, not a judgement of speed.
 */
const PROPERTY_TIMEOUT_MS = 120_000;

describe('Function: observeAll', () => {
  it(
    'observes the same with the generated scan as with each rule interpreted',
    () => {
      const tracked = fc.subarray(['a', 'b', 'c', 'x']);
      fc.assert(
        fc.property(fc.array(liveCall, { maxLength: 12 }), tracked, (rows, ids) => {
          const { records } = readBatch('live_calls', rows, ZONE);
          const observed = (compiled: (r: RuleConfig) => ReturnType<typeof compileRule>) =>
            CONFIG.rules.map((r) => ({
              compiled: compiled(r),
              ...(r.count
                ? {}
                : {
                    tracked: ids.map((id) => ({
                      key: alertKey(r.name, { call_id: id }),
                      labels: { call_id: id },
                    })),
                  }),
            }));
          const generated = observeAll(
            observed(interpretedRule.bind(null, false)),
            records,
            T0,
            ZONE,
          );
          const interpreted = observeAll(
            observed(interpretedRule.bind(null, true)),
            RecordBatch.of(parseRecords('live_calls', rows, ZONE).records),
            T0,
            ZONE,
            { generated: false },
          );
          expect(brief(generated)).toEqual(brief(interpreted));
        }),
        { numRuns: 1500 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('observes fields beyond the seed document alike on the raw scan and the records', () => {
    const newer = config([
      { name: 'ext', where: { extension: ['105', '0101'] } },
      { name: 'agent', where: { agent_number: '<> 9876500005' }, count: '>= 1' },
      { name: 'by-agent', where: { state: 'ringing' }, count: '> 0', groupBy: ['agent_number'] },
      { name: 'queue', where: { queue_name: 'sales' } },
      {
        name: 'by-queue',
        where: { queue_name: '<> support' },
        count: '> 0',
        groupBy: ['queue_name'],
      },
    ]);
    const row = fc.record(
      {
        call_id: fc.constantFrom('a', 'b', 'c', 4),
        state: fc.constantFrom('Ringing', 'Answered'),
        extension: fc.oneof(fc.constantFrom('105', 105, '0101', 101, ' 105 ', ''), value),
        agent_number: fc.oneof(
          fc.constantFrom('09876500005', '+919876500005', 9876500001, '+91 abc', ''),
          value,
        ),
        queue_name: fc.oneof(fc.constantFrom('Sales', 'SALES ', 'support', '', {}), value),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(row, { maxLength: 10 }), (rows) => {
        const observed = (closures: boolean) =>
          newer.rules.map((r) => ({ compiled: interpretedRule(closures, r) }));
        const fields = usedFields(newer, 'live_calls');
        const { records } = readBatch('live_calls', rows, ZONE, { fields });
        const generated = observeAll(observed(false), records, T0, ZONE);
        const whole = parseRecords('live_calls', rows, ZONE, { undocumented: ['queue_name'] });
        const reference = observeAll(observed(true), RecordBatch.of(whole.records), T0, ZONE, {
          generated: false,
        });
        expect(brief(generated)).toEqual(brief(reference));
      }),
      { numRuns: 1000 },
    );
  });

  const paymentFields = ['amount_paid', 'amount_tax', 'status', 'gateway', 'age', 'payment_id'];
  const paymentValue = fc.oneof(
    fc.constantFrom('100000.1', '100000.10', '99.5', ' 99.50 ', '-0', '0', '', 'x'),
    fc.constantFrom('Pending', 'PENDING\t', 'pending\u00a0', 'pénding', 'RAZORPAY', 'razorpay '),
    fc.integer({ min: -5, max: 200_000 }),
    fc.double(),
    fc.constant(true),
    fc.constant(['a', 'B']),
    fc.constant(undefined),
  );
  const paymentCondition = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...OPERATORS),
        fc.constantFrom('100000.1', '99.50', '0', '-1', 'pending', 'razorpay', '5m', '1e2'),
      )
      .map(([op, v]) => `${op} ${v}`),
    fc.constantFrom('pending', 'Razorpay', '99.5', '0', '5m'),
    fc.constant(['pending', 'success']),
    fc.constant(['100', '99.5']),
    fc.constant(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'pending', 'razorpay']),
  );

  it(
    'matches each payments rule as its closures do, money and lists included',
    () => {
      const where = fc.dictionary(fc.constantFrom(...paymentFields), paymentCondition, {
        maxKeys: 3,
      });
      const row = fc.record({
        fields: fc.dictionary(fc.constantFrom(...paymentFields), paymentValue, { maxKeys: 6 }),
        createdAtMs: fc.option(fc.integer({ min: T0 - 7_200_000, max: T0 + 1000 }), {
          nil: undefined,
        }),
      });
      fc.assert(
        fc.property(
          fc.array(where, { minLength: 1, maxLength: 5 }),
          fc.array(row, { maxLength: 8 }),
          (wheres, rows) => {
            const records: ApiRecord[] = rows.map(({ fields, createdAtMs }, i) => ({
              source: 'payments',
              key: String(i),
              fields: Object.fromEntries(
                Object.entries(fields).filter(([, v]) => v !== undefined),
              ) as ApiRecord['fields'],
              ...(createdAtMs === undefined ? {} : { createdAtMs }),
            }));
            const rules = wheres.map((w, i) =>
              rule({ name: `r${i}`, source: 'payments', where: w as Record<string, string> }),
            );
            const observations = observeAll(
              rules.map((r) => ({ compiled: compileRule(r, ZONE) })),
              RecordBatch.of(records),
              T0,
              ZONE,
            );
            rules.forEach((r, i) => {
              const where = compileWhereClosures('payments', r.where, ZONE);
              const expected = records.filter((x) => where(x, T0)).map((x) => x.key);
              const holding = [...(observations[i]?.values() ?? [])].filter((o) => o.holds);
              expect(holding.map((o) => o.labels.id).sort()).toEqual(expected.sort());
            });
          },
        ),
        { numRuns: 3000 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'observes raw payment rows as their records, money read as numbers included',
    () => {
      const amount = fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: -5, max: 200_000 }).map((n) => n / 100),
        fc.constantFrom('1500.00', '007.50', ' 99.50 ', '-0', '1e2', '100000.10', '1,500', 'x', ''),
        fc.constantFrom(1e21, 1e-7, 123456789012345.6, 0.1 + 0.2, 0.3, 1500),
      );
      const text = fc.constantFrom('pending', 'PENDING ', 'success', 'Razorpay', '', null, 7);
      const row = fc.record(
        {
          id: fc.constantFrom('1', '2', '3', 4, ' 5 ', '1.50', '1.5'),
          amount_paid: amount,
          amount_tax: amount,
          status: text,
          gateway: fc.oneof(text, fc.constant({})),
          payment_gateway: fc.oneof(text, fc.constant([])),
          payment_id: text,
          created_at: fc.constantFrom('21-Nov-2026 09:59:00', '2026-11-21 08:00:00', 'soon', ''),
        },
        { requiredKeys: ['id'] },
      );
      const condition = fc.oneof(
        fc
          .tuple(
            fc.constantFrom(...OPERATORS),
            fc.constantFrom('100000.1', '99.5', '0', '-1', '1e2'),
          )
          .map(([op, v]) => `${op} ${v}`),
        fc.constantFrom('1500', '0.3', '123456789012345.6', '0.30000000000000004', '1e21'),
        // Longer than a double tells apart: equal to a nearby amount as doubles, not as decimals.
        fc
          .tuple(
            fc.constantFrom(...OPERATORS),
            fc.constantFrom('0.300000000000000001', '1500.0000000000001'),
          )
          .map(([op, v]) => `${op} ${v}`),
        fc.constant(['99.5', '1500']),
      );
      const where = fc.record(
        {
          amount_paid: condition,
          amount_tax: condition,
          status: fc.constantFrom('pending', '<> success', ['pending', 'success']),
          gateway: fc.constantFrom('razorpay', '<> razorpay'),
          age: fc.constantFrom('> 5m', '< 1h'),
        },
        { requiredKeys: [] },
      );
      fc.assert(
        fc.property(
          fc.array(where, { minLength: 1, maxLength: 4 }),
          fc.array(row, { maxLength: 8 }),
          fc.subarray(['1', '2', '4', '1.5']),
          (wheres, rows, ids) => {
            const rules = wheres.map((w, i) =>
              rule({
                name: `r${i}`,
                source: 'payments',
                where: w as Record<string, string>,
                ...(i === 2 ? { count: '>= 1', groupBy: ['gateway'] } : {}),
              }),
            );
            const observed = (closures: boolean) =>
              rules.map((r) => ({
                compiled: interpretedRule(closures, r),
                ...(r.count
                  ? {}
                  : {
                      tracked: ids.map((id) => ({ key: alertKey(r.name, { id }), labels: { id } })),
                    }),
              }));
            expectSameAsInterpreted(observed, rows);
          },
        ),
        { numRuns: 3000 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('compares texts past the ones a scan remembers folded as it compares the first ones', () => {
    // Enough distinct texts to fill each text field's remembered folds before the rows drawn.
    const filler = Array.from({ length: MAX_FOLDED }, (_, i) => ({
      id: `f${i}`,
      status: `Filler ${i}`,
      gateway: `Gate ${i}`,
      payment_id: `PAY_F${i}`,
      created_at: '21-Nov-2026 09:00:00',
    }));
    const text = fc.constantFrom(
      'pending',
      'PENDING ',
      ' Pending\t',
      'success',
      'Razorpay',
      'RAZORPAY ',
      'pay_7',
      'PAY_7',
      ' pay_70',
      'pénding',
      '',
      '  ',
      null,
      7,
    );
    const row = fc.record(
      {
        id: fc.constantFrom('1', '2', '3'),
        status: text,
        gateway: fc.oneof(text, fc.constant({})),
        payment_gateway: text,
        payment_id: text,
        created_at: fc.constantFrom('21-Nov-2026 09:59:00', 'soon'),
      },
      { requiredKeys: ['id'] },
    );
    const where = fc.record(
      {
        status: fc.constantFrom('pending', '<> success', ['pending', 'success'], '> p'),
        gateway: fc.constantFrom('razorpay', '<> razorpay', '<= razorpay'),
        payment_id: fc.constantFrom('pay_7', '<> PAY_7', ['pay_7', 'pay_70'], '< pay_8'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(where, { minLength: 1, maxLength: 3 }),
        fc.array(row, { maxLength: 8 }),
        (wheres, drawn) => {
          const rows = [...filler, ...drawn];
          const rules = wheres.map((w, i) =>
            rule({ name: `r${i}`, source: 'payments', where: w as Record<string, string> }),
          );
          const observed = (closures: boolean) =>
            rules.map((r) => ({ compiled: interpretedRule(closures, r) }));
          expectSameAsInterpreted(observed, rows);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives every rule its answer when a source has more rules than one pass takes', () => {
    const rules = Array.from({ length: 70 }, (_, i) =>
      rule({ name: `r${i}`, source: 'payments', where: { amount_paid: `>= ${i * 10}` } }),
    );
    const records: ApiRecord[] = [0, 105, 690].map((amount, i) => ({
      source: 'payments',
      key: String(i),
      fields: { amount_paid: String(amount) },
    }));
    const observations = observeAll(
      rules.map((r) => ({ compiled: compileRule(r, ZONE) })),
      RecordBatch.of(records),
      T0,
      ZONE,
    );
    const holding = observations.map((o) => [...o.values()].filter((x) => x.holds).length);
    expect(holding).toEqual(rules.map((_, i) => (i === 0 ? 3 : i <= 10 ? 2 : i <= 69 ? 1 : 0)));
  });

  it('counts each group the distinct identities of its matching rows, smallest ones listed', () => {
    const counted = config([
      { name: 'all', where: { state: '<> answered' }, count: '>= 0' },
      { name: 'by-agent', where: { state: '<> answered' }, count: '>= 0', groupBy: ['agent_name'] },
    ]);
    fc.assert(
      fc.property(fc.array(liveCall, { maxLength: 30 }), (rows) => {
        const { records } = parseRecords('live_calls', rows, ZONE);
        const compiled = counted.rules.map((r) => compileRule(r, ZONE));
        const [all, byAgent] = observeAll(
          compiled.map((c) => ({ compiled: c })),
          readBatch('live_calls', rows, ZONE).records,
          T0,
          ZONE,
        );
        // The reference: distinct keys of the matching records, per group; the listed ones are
        // the smallest (shorter whole part first, then by code unit), whatever the rows' order.
        const matching = records.filter((record) => compiled[0]?.where(record, T0));
        const distinct = (list: ApiRecord[]) => [...new Set(list.map((r) => r.key))];
        const total = [...(all?.values() ?? [])][0];
        expect(total?.value).toBe(distinct(matching).length);
        const whole = (id: string) => (id.includes('.') ? id.indexOf('.') : id.length);
        const smallest = distinct(matching).sort(
          (a, b) => whole(a) - whole(b) || (a < b ? -1 : a > b ? 1 : 0),
        );
        expect(total?.context.ids ?? '').toBe(smallest.slice(0, 5).join(', '));
        const agents = new Map<string, ApiRecord[]>();
        for (const record of matching) {
          const agent = String(record.fields.agent_name ?? '').toLowerCase();
          agents.set(agent, [...(agents.get(agent) ?? []), record]);
        }
        const byGroup = [...(byAgent?.values() ?? [])].map((o) => [
          String(o.labels.agent_name).toLowerCase(),
          o.value,
        ]);
        expect(new Map(byGroup as [string, number][])).toEqual(
          new Map([...agents].map(([agent, list]) => [agent, distinct(list).length])),
        );
      }),
      { numRuns: 1000 },
    );
  });

  describe('lists the smallest identities, ids of one whole length with and without a dot', () => {
    const id = fc.oneof(fc.stringMatching(/^[0-9a.]{1,5}$/), fc.integer({ min: 0, max: 999 }));
    const whole = (key: string) => (key.includes('.') ? key.indexOf('.') : key.length);
    const smallest = (records: readonly ApiRecord[]) =>
      [...new Set(records.map((r) => r.key))]
        .sort((a, b) => whole(a) - whole(b) || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, 5)
        .join(', ');
    const listed = (observations: Map<string, Observation> | undefined) =>
      [...(observations?.values() ?? [])][0]?.context.ids ?? '';

    it('of calls counted with repeats (a group)', () => {
      const compiled = compileRule(
        rule({ name: 'all', where: { state: 'Ringing' }, count: '>= 0' }),
        ZONE,
      );
      fc.assert(
        fc.property(fc.array(id, { maxLength: 60 }), (ids) => {
          const rows = ids.map((call_id) => ({ call_id, state: 'Ringing' }));
          const { records } = parseRecords('live_calls', rows, ZONE);
          const [all] = observeAll(
            [{ compiled }],
            readBatch('live_calls', rows, ZONE).records,
            T0,
            ZONE,
          );
          expect(listed(all)).toBe(smallest(records));
        }),
        { numRuns: 500 },
      );
    });

    it('of payments counted one per identity (a total)', () => {
      const compiled = compileRule(
        rule({ name: 'all', source: 'payments', where: { status: 'pending' }, count: '>= 0' }),
        ZONE,
      );
      fc.assert(
        fc.property(fc.array(id, { maxLength: 60 }), (ids) => {
          const rows = ids.map((paymentId) => ({ id: paymentId, status: 'pending' }));
          const { records } = parseRecords('payments', rows, ZONE);
          // One record per identity, as the evaluation hands payments to their rules.
          const distinct = records.filter(
            (record, index) => records.findIndex((other) => other.key === record.key) === index,
          );
          const [all] = observeAll(
            [{ compiled, distinct: true }],
            RecordBatch.of(distinct),
            T0,
            ZONE,
          );
          expect(listed(all)).toBe(smallest(distinct));
        }),
        { numRuns: 500 },
      );
    });
  });

  it('observes a tracked record under the key it would build, whatever key the instance kept', () => {
    // A state from before the rule was edited (an aggregate by call_id and state, now per
    // record): its keys are not this rule's, and must not become its observations' keys.
    const compiled = compileRule(
      rule({ name: 'r', source: 'live_calls', where: { state: 'Ringing' } }),
      ZONE,
    );
    const { records } = readBatch('live_calls', [{ call_id: 'A', state: 'Ringing' }], ZONE);
    const tracked = [
      { key: 'r{call_id=a,state=ringing}', labels: { call_id: 'A', state: 'Ringing' } },
    ];
    for (const generated of [true, false]) {
      const [observations] = observeAll([{ compiled, tracked }], records, T0, ZONE, {
        generated,
      });
      expect([...(observations?.keys() ?? [])]).toEqual(['r{call_id=A}']);
    }
  });

  it('hands a tracked record to exactly the rules that track it, in every pass', () => {
    // 70 rules: three passes; rule i tracks payment `t${i % 7}`; nothing matches.
    const rules = Array.from({ length: 70 }, (_, i) =>
      rule({ name: `r${i}`, source: 'payments', where: { status: 'never' } }),
    );
    const records: ApiRecord[] = Array.from({ length: 7 }, (_, i) => ({
      source: 'payments',
      key: `t${i}`,
      fields: { status: 'pending' },
    }));
    for (const generated of [true, false]) {
      const observations = observeAll(
        rules.map((r, i) => ({
          compiled: compileRule(r, ZONE),
          tracked: [{ key: alertKey(`r${i}`, { id: `t${i % 7}` }), labels: { id: `t${i % 7}` } }],
        })),
        RecordBatch.of(records),
        T0,
        ZONE,
        { generated },
      );
      expect(observations.map((o) => [...o.values()].map((x) => [x.labels.id, x.holds]))).toEqual(
        rules.map((_, i) => [[`t${i % 7}`, false]]),
      );
    }
  });

  it('keeps, of the matches under keys a rule does not track, only the first `newAtMost` in key order', () => {
    const compiled = compileRule(
      rule({ name: 'r', source: 'payments', where: { status: 'pending' } }),
      ZONE,
    );
    const payments = fc
      .uniqueArray(fc.stringMatching(/^[0-9a-c]{1,4}$/), { maxLength: 40 })
      .chain((ids) =>
        fc.record({
          rows: fc.shuffledSubarray(
            ids.map((id, i) => ({ id, status: i % 3 === 0 ? 'success' : 'pending' })),
            { minLength: ids.length },
          ),
          tracked: fc.subarray(ids),
          count: fc.nat({ max: ids.length + 2 }),
        }),
      );
    fc.assert(
      fc.property(payments, fc.boolean(), ({ rows, tracked, count }, generated) => {
        const { records } = readBatch('payments', rows, ZONE);
        const instances = tracked.map((id) => ({ key: alertKey('r', { id }), labels: { id } }));
        const keys = new Set(instances.map((instance) => instance.key));
        const observe = (bounded: boolean) => {
          const [observed] = observeAll(
            [
              {
                compiled,
                tracked: instances,
                ...(bounded
                  ? { newAtMost: { count, tracks: (key: string) => keys.has(key) } }
                  : {}),
              },
            ],
            records,
            T0,
            ZONE,
            { generated },
          );
          return observed ?? new Observations();
        };
        const all = observe(false);
        const bounded = observe(true);
        const fresh = [...all.values()]
          .filter((o) => o.holds && !keys.has(o.key))
          .map((o) => o.key)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const kept = new Set([...keys, ...fresh.slice(0, count)]);
        expect(brief([bounded])).toEqual(
          brief([new Map([...all].filter(([key]) => kept.has(key)))]),
        );
        expect(bounded.unlisted).toBe(Math.max(0, fresh.length - count));
        expect(all.unlisted).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps groups of several fields apart whatever their text', () => {
    const grouped = config([
      { name: 'g', where: {}, count: '>= 1', groupBy: ['agent_name', 'sip_domain'] },
    ]);
    const { records } = readBatch(
      'live_calls',
      [
        { call_id: '1', agent_name: 'ab', sip_domain: 'c' },
        { call_id: '2', agent_name: 'a', sip_domain: 'bc' },
      ],
      ZONE,
    );
    const [observed] = observeAll(
      grouped.rules.map((r) => ({ compiled: compileRule(r, ZONE) })),
      records,
      T0,
      ZONE,
    );
    expect([...(observed?.values() ?? [])].map((o) => o.value)).toEqual([1, 1]);
  });
});
