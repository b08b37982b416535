import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArrayReader } from '../../shared/api/json-array';
import { evaluate } from '../../shared/engine/evaluate';
import { formatDecimal, parseNumberLiteral } from '../../shared/money/decimal';
import { parseJsonExact } from '../../shared/records/exact-json';
import { readBatch } from '../../shared/records/parse';
import { parseTimeline } from '../../shared/timeline/parse';
import { replayTimeline } from '../../shared/timeline/replay';
import { config, T0, ZONE } from '../engine/fixtures';

/** Amounts as JSON number literals, and whether each is at least 100000.1. */
const AMOUNTS: readonly (readonly [literal: string, large: boolean])[] = [
  ['100000.0999999999999999', false],
  ['100000.09999999999999999999', false],
  ['100000.1000000000000001', true],
  ['100000.1', true],
  ['100000.10000000000000000', true],
  ['1e21', true],
  ['1E+21', true],
  ['2.5e21', true],
  ['123456789012345678901234567890', true],
  ['99999.99999999999999999', false],
];

const LARGE = config([
  { name: 'large', source: 'payments', where: { amount_paid: '>= 100000.1' } },
]);

/** One payment per amount, written as the API would: each amount a bare number literal. */
function body(): string {
  const rows = AMOUNTS.map(
    ([literal], index) =>
      `{"id": ${index + 1}, "status": "success", "created_at": "2026-11-21 09:00:00", "amount_paid": ${literal}}`,
  );
  return `[${rows.join(',\n')}]`;
}

/** The payments the rule fires for, read as the deployed poller reads an answer. */
function firedByPoller(): string[] {
  const text = body();
  // Small chunks, each cut where it allows, so the answer is parsed in several pieces.
  const reader = new JsonArrayReader(undefined, { minPieceLength: 0 });
  for (let at = 0; at < text.length; at += 50) reader.push(text.slice(at, at + 50));
  const answer = reader.end();
  if (answer.kind !== 'array') throw new Error(`not an array: ${answer.kind}`);
  const { records, skipped } = readBatch('payments', answer.rows, ZONE);
  const { notifications } = evaluate(LARGE, 'payments', { ok: true, records, skipped }, T0);
  return notifications.map((n) => n.labels.id ?? '');
}

/** The same, replayed from a timeline line. */
function firedByReplay(): string[] {
  const line = `{"at": "2026-11-21 10:00:00", "source": "payments", "records": ${body().replaceAll('\n', '')}}`;
  const entries = parseTimeline(line, 'timeline.jsonl', ZONE);
  return replayTimeline(LARGE, entries).map((n) => n.labels.id ?? '');
}

describe('Money sent as JSON numbers is read exactly', () => {
  const expected = AMOUNTS.flatMap(([, large], index) => (large ? [String(index + 1)] : []));

  it('fires for exactly the amounts at or above the threshold, read by the poller', () => {
    expect(firedByPoller()).toEqual(expected);
  });

  it('fires for the same amounts in replay', () => {
    expect(firedByReplay()).toEqual(expected);
  });

  it('keeps a long money literal as its exact decimal text, and everything else as JSON.parse', () => {
    expect(
      parseJsonExact(
        '{"amount_paid": 100000.0999999999999999, "amount_tax": 1.00000000000000001e21, "amount_added": 100000.10000000000000000, "id": 12345678901234567890}',
      ),
    ).toEqual({
      amount_paid: '100000.0999999999999999',
      amount_tax: '1000000000000000010000',
      amount_added: 100000.1,
      id: 12345678901234567000,
    });
  });

  it('keeps a long literal exact only under a money key, not one that merely ends like one', () => {
    expect(
      parseJsonExact(
        '{"net_amount_paid": 100000.0999999999999999, "xamount_tax":100000.0999999999999999, "amount_paid": 1}',
      ),
    ).toEqual({ net_amount_paid: 100000.1, xamount_tax: 100000.1, amount_paid: 1 });
  });

  it('reads any money literal as its exact decimal value', () => {
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^(0|[1-9]\d{0,24})$/),
        fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }),
        fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
      )
      .map(
        ([negative, whole, fraction, exponent]) =>
          `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`,
      );
    fc.assert(
      fc.property(literal, (text) => {
        const parsed = parseJsonExact(`[{"amount_paid": ${text}}]`) as { amount_paid: unknown }[];
        const { records } = readBatch('payments', [{ id: 1, ...parsed[0] }], ZONE);
        expect(records.value(0, 'amount_paid')).toBe(
          formatDecimal(
            parseNumberLiteral(text) as NonNullable<ReturnType<typeof parseNumberLiteral>>,
          ),
        );
      }),
    );
  });

  it('parses a text without long money literals exactly as JSON.parse', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonExact(text)).toStrictEqual(JSON.parse(text));
      }),
    );
  });
});
