import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  JsonArrayReader,
  MAX_RETRIED_LENGTH,
  MIN_PIECE_LENGTH,
  rowSink,
  type StreamedBody,
} from '../../shared/api/json-array';
import { cutAt } from '../support/pieces';

/** Cut wherever a chunk allows (`minPieceLength: 0`), so small texts exercise every cut. */
const EVERY_CUT = { minPieceLength: 0 };

function read(chunks: readonly string[]): StreamedBody {
  const reader = new JsonArrayReader(undefined, EVERY_CUT);
  for (const chunk of chunks) reader.push(chunk);
  return reader.end();
}

/** What the reader must say of `text`: what one `JSON.parse` of it says. */
function expected(text: string): StreamedBody {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (!start.startsWith('[')) return { kind: 'text', text };
  try {
    return { kind: 'array', rows: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown[] };
  } catch {
    return { kind: 'malformed-array' };
  }
}

// Strings made of the characters that fool a cut: braces, commas, brackets, quotes, escapes.
const tricky = fc.string({
  unit: fc.constantFrom('}', ',', '{', '[', ']', '"', '\\', 'a', ' ', 'é', '😀'),
  maxLength: 12,
});
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('node'), { maxKeys: 3 }),
  ),
}));
const record = fc.dictionary(tricky, value.node, { maxKeys: 4 });
const rows = fc.array(
  fc.oneof({ weight: 5, arbitrary: record }, { weight: 1, arbitrary: value.node }),
  {
    maxLength: 30,
  },
);
const layout = fc.constantFrom('compact', 'spaced', 'bom');

function render(items: unknown[], how: string): string {
  if (how === 'spaced') return ` \n${JSON.stringify(items, null, 1)}\n`;
  const text = JSON.stringify(items);
  return how === 'bom' ? `\uFEFF${text}` : text;
}

describe('Class: JsonArrayReader', () => {
  describe('Money literals', () => {
    const LONG = '[{"amount_paid":100000.0999999999999999,"id":"1"}]';
    const piecesOf = (exactMoney?: boolean) => {
      const pieces: unknown[] = [];
      const sink = Object.assign((rows: readonly unknown[]) => pieces.push(...rows), {
        ...(exactMoney === undefined ? {} : { exactMoney }),
      });
      const reader = new JsonArrayReader(sink);
      reader.push(LONG);
      return { pieces, body: reader.end() };
    };

    it('keeps a money literal a double does not hold as its exact text, by default', () => {
      const { body } = piecesOf();
      expect(body).toEqual({
        kind: 'array',
        rows: [{ amount_paid: '100000.0999999999999999', id: '1' }],
      });
    });

    it('parses as JSON.parse does, without searching for money, for rows that have no money field', () => {
      const { body } = piecesOf(false);
      expect(body).toEqual({ kind: 'array', rows: JSON.parse(LONG) });
    });
  });

  describe('Method: end', () => {
    it('gives the elements JSON.parse gives, however the text is cut into chunks', () => {
      fc.assert(
        fc.property(rows, layout, fc.array(fc.nat(), { maxLength: 40 }), (items, how, cuts) => {
          const text = render(items, how);
          expect(read(cutAt(text, cuts))).toEqual(expected(text));
        }),
        { numRuns: 2000 },
      );
    });

    it('refuses an array cut short or broken anywhere, as JSON.parse does', () => {
      fc.assert(
        fc.property(
          rows,
          fc.nat(),
          fc.constantFrom('cut', 'insert'),
          fc.array(fc.nat(), { maxLength: 20 }),
          (items, at, damage, cuts) => {
            const whole = JSON.stringify(items);
            const where = at % (whole.length + 1);
            const text =
              damage === 'cut'
                ? whole.slice(0, where)
                : `${whole.slice(0, where)}}${whole.slice(where)}`;
            expect(read(cutAt(text, cuts))).toEqual(expected(text));
          },
        ),
        { numRuns: 2000 },
      );
    });

    it('takes whole records as they come, before the end of the body', () => {
      const reader = new JsonArrayReader(undefined, EVERY_CUT);
      reader.push('[{"id":1},{"id":2},{"id"');
      reader.push(':3}]');
      expect(reader.end()).toEqual({ kind: 'array', rows: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    });

    it('reads a record whose text holds "},{" as one record', () => {
      const text = '[{"name":"a},{b"},{"x":[{"y":1},{"z":2}]}]';
      expect(read(cutAt(text, [5, 9, 20, 28]))).toEqual({
        kind: 'array',
        rows: [{ name: 'a},{b' }, { x: [{ y: 1 }, { z: 2 }] }],
      });
    });

    it('reads an answer that came in more pieces than a call takes arguments', () => {
      const reader = new JsonArrayReader();
      reader.push('[{},{}');
      for (let piece = 0; piece < 130_000; piece += 1) reader.push(',{},{}');
      reader.push(']');
      const body = reader.end();
      expect(body.kind === 'array' ? body.rows.length : 0).toBe(260_002);
    });

    it('reads an array behind whitespace that came in many chunks', () => {
      const reader = new JsonArrayReader();
      for (let chunk = 0; chunk < 1000; chunk += 1) reader.push(' \n\t\r'.repeat(16));
      reader.push('[{"id":1}');
      reader.push(',{"id":2}]');
      expect(reader.end()).toEqual({ kind: 'array', rows: [{ id: 1 }, { id: 2 }] });
    });

    it('reads records past a long stretch that no cut could take whole', () => {
      // A string of "},{" longer than the reader retries, then ordinary records.
      const rows = [
        { id: 0, note: '},{'.repeat(MAX_RETRIED_LENGTH / 2) },
        ...Array.from({ length: 500 }, (_, id) => ({ id: id + 1 })),
      ];
      const text = JSON.stringify(rows);
      const chunks = cutAt(
        text,
        Array.from({ length: Math.ceil(text.length / 65_536) }, (_, n) => n * 65_536),
      );
      expect(read(chunks)).toEqual({ kind: 'array', rows });
      const broken = `${text.slice(0, 1000)}"${text.slice(1000)}`;
      expect(read(cutAt(broken, [5000, 70_000, 3_000_000]))).toEqual({ kind: 'malformed-array' });
    });

    it('tries a stretch no cut can take a few times, not once a chunk, however small the chunks', () => {
      const rows = [
        { id: 0, note: '}, {'.repeat(40_000) },
        ...Array.from({ length: 200 }, (_, id) => ({ id: id + 1 })),
      ];
      const text = JSON.stringify(rows);
      const chunks = cutAt(
        text,
        Array.from({ length: Math.ceil(text.length / 64) }, (_, n) => n * 64),
      );
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(read(chunks)).toEqual({ kind: 'array', rows });
        // About 2,500 chunks hold a cut inside the note; a parse at each would be quadratic.
        expect(parse.mock.calls.length).toBeLessThan(100);
      } finally {
        parse.mockRestore();
      }
    });

    it('returns a body that is not an array as its text', () => {
      expect(read(['{"success":false,', '"message":"bad token"}'])).toEqual({
        kind: 'text',
        text: '{"success":false,"message":"bad token"}',
      });
      expect(read(['<html>'])).toEqual({ kind: 'text', text: '<html>' });
      expect(read([])).toEqual({ kind: 'text', text: '' });
    });

    it('calls an array cut short malformed', () => {
      expect(read(['[{"id":1},{"id":2},{"i'])).toEqual({ kind: 'malformed-array' });
      expect(read(['  ['])).toEqual({ kind: 'malformed-array' });
    });
  });

  describe('Option: onRows', () => {
    it('hands over, a piece at a time, exactly the elements end gives', () => {
      fc.assert(
        fc.property(rows, layout, fc.array(fc.nat(), { maxLength: 40 }), (items, how, cuts) => {
          const pieces: (readonly unknown[])[] = [];
          const reader = new JsonArrayReader((piece) => pieces.push(piece), EVERY_CUT);
          for (const chunk of cutAt(render(items, how), cuts)) reader.push(chunk);
          const body = reader.end();
          const handed = pieces.flat();
          expect(handed).toHaveLength(body.kind === 'array' ? body.rows.length : 0);
          if (body.kind === 'array') {
            expect(handed.every((row, index) => row === body.rows[index])).toBe(true);
          }
        }),
        { numRuns: 1000 },
      );
    });

    it.each([
      ['compact', '[{"id":1},{"id":2},{"id"', ':3}]'],
      [
        'pretty-printed',
        '[\n  {\n    "id": 1\n  },\n  {\n    "id": 2\n  } ,\r\n\t{\n    "id"',
        ': 3\n  }\n]\n',
      ],
    ])('hands whole records over before the end of a %s body', (_, first, rest) => {
      const pieces: (readonly unknown[])[] = [];
      const reader = new JsonArrayReader((piece) => pieces.push(piece), EVERY_CUT);
      reader.push(first);
      expect(pieces).toEqual([[{ id: 1 }, { id: 2 }]]);
      reader.push(rest);
      expect(reader.end()).toEqual({ kind: 'array', rows: [{ id: 1 }, { id: 2 }, { id: 3 }] });
      expect(pieces).toEqual([[{ id: 1 }, { id: 2 }], [{ id: 3 }]]);
    });

    it('hands nothing over for a body that is not an array', () => {
      const pieces: unknown[] = [];
      const reader = new JsonArrayReader((piece) => pieces.push(piece), EVERY_CUT);
      reader.push('{"success":false}');
      expect(reader.end().kind).toBe('text');
      expect(pieces).toEqual([]);
    });
  });

  describe('Option: minPieceLength', () => {
    const payments = Array.from({ length: 4000 }, (_, id) => ({
      id,
      status: id % 7 === 0 ? 'pending' : 'success',
      note: '},{ "a": [1, {"b": "}, {"}] }',
      amount_paid: id * 1.5,
    }));
    const text = JSON.stringify(payments);

    it.each([
      ['64 KiB', 65_536],
      ['1 KiB', 1024],
    ])('parses no piece but the last from less than MIN_PIECE_LENGTH, in %s chunks', (_, size) => {
      const parse = vi.spyOn(JSON, 'parse');
      try {
        const pieces: (readonly unknown[])[] = [];
        const reader = new JsonArrayReader((piece) => pieces.push(piece));
        for (let at = 0; at < text.length; at += size) reader.push(text.slice(at, at + size));
        expect(reader.end()).toEqual({ kind: 'array', rows: payments });
        const lengths = parse.mock.calls.map(([parsed]) => parsed.length);
        // Every text parsed before the end (a cut the note fooled included) is that long.
        expect(lengths.slice(0, -1).every((length) => length >= MIN_PIECE_LENGTH)).toBe(true);
        expect(pieces.length).toBeGreaterThan(1);
        expect(pieces.flat()).toEqual(payments);
      } finally {
        parse.mockRestore();
      }
    });
  });

  describe('Function: rowSink', () => {
    const reader = (hasMoney: boolean) => {
      const pieces: (readonly unknown[])[] = [];
      return {
        pieces,
        rows: { push: (piece: readonly unknown[]) => pieces.push(piece), hasMoney },
      };
    };

    it('cuts payments into long pieces, money kept exact', () => {
      const { pieces, rows } = reader(true);
      const sink = rowSink('payments', rows);
      expect(sink.exactMoney).toBe(true);
      expect(sink.minPieceLength).toBe(MIN_PIECE_LENGTH);
      sink([{ id: 1 }]);
      expect(pieces).toEqual([[{ id: 1 }]]);
    });

    it('cuts live calls wherever a chunk allows, without searching for money', () => {
      const { pieces, rows } = reader(false);
      const sink = rowSink('live_calls', rows);
      expect(sink.exactMoney).toBe(false);
      const body = new JsonArrayReader(sink);
      body.push('[{"call_id":"a"},{"call_id":"b"},{"call_');
      expect(pieces).toEqual([[{ call_id: 'a' }, { call_id: 'b' }]]);
      body.push('id":"c"}]');
      expect(body.end()).toEqual({
        kind: 'array',
        rows: [{ call_id: 'a' }, { call_id: 'b' }, { call_id: 'c' }],
      });
    });
  });

  describe('Property: length', () => {
    it('counts every character pushed', () => {
      const reader = new JsonArrayReader();
      reader.push('[1,');
      reader.push('2]');
      expect(reader.length).toBe(5);
    });
  });
});
