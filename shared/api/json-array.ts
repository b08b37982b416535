/**
 * A JSON array read as its text streams in, a piece of whole elements at a time, so a large
 * answer never exists as one string: a 100,000-payment answer is 20 MB of text, and a whole
 * copy (with the copy `JSON.parse` makes to flatten a text built chunk by chunk) lives until a
 * full garbage collection, beside the records, in a 256 MB function.
 *
 * Elements are cut where a chunk holds `}`, a comma and `{` with nothing but whitespace
 * between them (`},{`, or `},\n  {` in a pretty-printed answer), once the text since the
 * last cut is `MIN_PIECE_LENGTH` long. A cut is only a guess, since the same characters can
 * sit inside a string or a nested array; the piece before it is parsed as `[piece]` and,
 * since every piece starts where a successful one ended, a cut in the wrong place always
 * leaves an unterminated string or an unclosed bracket, which `JSON.parse` refuses. A refused
 * piece stays pending and is tried again at a later cut once the pending text has doubled,
 * until it passes `MAX_RETRIED_LENGTH` (broken JSON, or records that all hold `},{`): then
 * the rest is parsed once, at the end, so a bad body costs a bounded amount
 * of parsing twice, in whatever chunks it comes. So the elements are exactly `JSON.parse`'s
 * (but for a money literal a double does not hold, kept as its text: `parseJsonExact`), and a
 * body that is not valid JSON is refused as it is.
 */

import { parseJsonExact } from '../records/exact-json';
import type { SourceName } from '../types/config';

/** What a streamed body turned out to be. */
export type StreamedBody =
  | { readonly kind: 'array'; readonly rows: unknown[] }
  /** An array whose text is not valid JSON (malformed, or cut short). */
  | { readonly kind: 'malformed-array' }
  /** Anything else (an object, an HTML page, nothing): the text, as received. */
  | { readonly kind: 'text'; readonly text: string };

const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
/** Pending text past which a refused cut stops being retried at the next chunk. */
export const MAX_RETRIED_LENGTH = 1024 * 1024;
/**
 * The shortest text a piece is cut from (the last piece excepted): 128 Ki characters, so the
 * flat copy `JSON.parse` makes of `[` + the text + `]` is past V8's largest regular object
 * (128 KiB) and lives in the large-object space. Copies of 64 KiB chunks (as node:http reads
 * them) filled the young generation instead: 20 MB of them over 100k payments, beside the
 * 20 MB of rows that live through the evaluation, so every run brought a scavenge that copied
 * the rows. On the bench's 100k payments (Intel Xeon, loaded): about one scavenge a run and
 * 23-54 ms of collection became one every other run and 6-10 ms.
 */
export const MIN_PIECE_LENGTH = 128 * 1024;
const BOM = 0xfeff;
const OPEN = 0x5b;

/**
 * `start`: nothing significant yet. `text`: not an array, read as text. `array`: cutting pieces
 * as they come. `array-rest`: an array whose rest is parsed once, at the end.
 */
type Mode = 'start' | 'text' | 'array' | 'array-rest';

/** Reads one body chunk by chunk (`push`), then tells what it was (`end`). */
export interface BodyReader {
  push(chunk: string): void;
  /** Characters pushed so far. */
  readonly length: number;
  end(): StreamedBody;
}

/** A body kept as text (an error answer's, whose text only ever adds a message). */
export class TextReader implements BodyReader {
  #text = '';
  length = 0;

  push(chunk: string): void {
    this.#text += chunk;
    this.length += chunk.length;
  }

  end(): StreamedBody {
    return { kind: 'text', text: this.#text };
  }
}

/** Takes each piece of an array's elements as it is parsed, in order. */
export type RowSink = ((rows: readonly unknown[]) => void) & {
  /**
   * False when the rows have no money field (live calls): no money literal to keep exact, so
   * the pieces are parsed by `JSON.parse` without searching them for one. @default true
   */
  readonly exactMoney?: boolean;
  /** The shortest text a piece of these rows is cut from. @default MIN_PIECE_LENGTH */
  readonly minPieceLength?: number;
};

/**
 * The sink through which a reader of `source`'s rows (the client's `BatchReader`) takes an
 * answer's pieces: money literals kept exact where the records have money, pieces of
 * `MIN_PIECE_LENGTH` for payments. A live-call answer is cut wherever a chunk allows: over
 * 20k calls the long pieces measured slower (about 5% of the pipeline's CPU, 1.92x to 2.10x
 * `JSON.parse` on the loaded Xeon), where 100k payments, whose rows live through far more
 * young-generation allocation, gained (2.14x to 1.78x).
 */
export function rowSink(
  source: SourceName,
  rows: { push(piece: readonly unknown[]): void; readonly hasMoney: boolean },
): RowSink {
  return Object.assign((piece: readonly unknown[]) => rows.push(piece), {
    exactMoney: rows.hasMoney,
    minPieceLength: source === 'payments' ? MIN_PIECE_LENGTH : 0,
  });
}

/** A body that is a JSON array (or anything else, then as text); see the module. */
export class JsonArrayReader implements BodyReader {
  /**
   * Each piece of elements as it is parsed, in order, so a caller reads the rows while they
   * are in the processor's cache; together the pieces are `end`'s rows (none when the body
   * turns out not to be an array, some when it turns out malformed).
   */
  readonly #onRows: RowSink | undefined;
  #mode: Mode = 'start';
  /**
   * `start` and `text`: everything so far. `array` and `array-rest`: the array's text after
   * its `[` and after the comma that follows the last piece taken, so a piece is parsed as
   * `[` + its text + `]` and the rest, at the end, as `[` + its text (which holds the `]`).
   * Built so: a slice of a string built by `+` would copy it before `JSON.parse` copies again.
   */
  #pending = '';
  #parts: unknown[][] = [];
  /**
   * After a refused cut, the pending length from which a cut is tried again: twice what was
   * refused, so a stretch no cut can take costs parsing in proportion to its length however
   * small the chunks it comes in (trying at every chunk cost its length squared over the
   * chunk size: seconds for 64-byte chunks of a record holding `}, {`).
   */
  #retryAt = 0;
  length = 0;

  /** Money literals a double does not hold are kept exact (`parseJsonExact`). */
  readonly #exactMoney: boolean;

  /** No piece is cut from less pending text than this (`MIN_PIECE_LENGTH`). */
  readonly #minPieceLength: number;

  /**
   * `onRows` also says whether money literals are kept exact (`RowSink.exactMoney`) and how
   * long a piece's text is at least (`RowSink.minPieceLength`), unless `minPieceLength` says
   * (tests cut small texts with 0).
   */
  constructor(
    onRows?: RowSink,
    { minPieceLength = onRows?.minPieceLength ?? MIN_PIECE_LENGTH } = {},
  ) {
    this.#onRows = onRows;
    this.#exactMoney = onRows?.exactMoney ?? true;
    this.#minPieceLength = minPieceLength;
  }

  push(chunk: string): void {
    this.length += chunk.length;
    if (this.#mode === 'start') {
      // Only the new chunk is looked at: reading the pending text would flatten it each time.
      const at = firstSignificant(chunk, this.#pending.length === 0);
      this.#pending += chunk;
      if (at === -1) return;
      if (chunk.charCodeAt(at) !== OPEN) {
        this.#mode = 'text';
        return;
      }
      const text = chunk.slice(at + 1);
      this.#pending = '';
      this.#mode = 'array';
      this.#take(text);
      return;
    }
    if (this.#mode === 'array') this.#take(chunk);
    else this.#pending += chunk;
  }

  /** The body once it is all in. */
  end(): StreamedBody {
    if (this.#mode === 'start' || this.#mode === 'text') {
      return { kind: 'text', text: this.#pending };
    }
    const last = parseArray(`[${this.#pending}`, this.#exactMoney);
    this.#pending = '';
    if (last === undefined) return { kind: 'malformed-array' };
    this.#parts.push(last);
    this.#onRows?.(last);
    const rows = this.#parts.length === 1 ? last : joinParts(this.#parts);
    this.#parts = [];
    return { kind: 'array', rows };
  }

  /**
   * `text` follows the pending text: takes the whole elements before its last `},{`, once
   * there are `#minPieceLength` characters of them.
   */
  #take(text: string): void {
    const shortest = Math.max(this.#retryAt, this.#minPieceLength);
    const comma = this.#pending.length + text.length <= shortest ? -1 : lastBoundary(text);
    if (comma === -1 || this.#pending.length + comma < shortest) {
      this.#pending += text;
      if (this.#retryAt > 0 && this.#pending.length > MAX_RETRIED_LENGTH) this.#mode = 'array-rest';
      return;
    }
    const rows = parseArray(`[${this.#pending}${text.slice(0, comma)}]`, this.#exactMoney);
    if (rows === undefined) {
      // Not a boundary after all (or not JSON): tried again at a later cut while that is cheap.
      this.#pending += text;
      this.#retryAt = 2 * this.#pending.length;
      if (this.#pending.length > MAX_RETRIED_LENGTH) this.#mode = 'array-rest';
      return;
    }
    this.#retryAt = 0;
    this.#parts.push(rows);
    this.#pending = text.slice(comma + 1);
    this.#onRows?.(rows);
  }
}

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * The comma of `text`'s last `}`, `,`, `{` with nothing but whitespace between them; -1 when
 * it has none. Walks back from the last `{`, each character looked at once or twice.
 */
function lastBoundary(text: string): number {
  for (let open = text.lastIndexOf('{'); open > 0; open = text.lastIndexOf('{', open - 1)) {
    let at = open - 1;
    while (at >= 0 && isBlank(text.charCodeAt(at))) at -= 1;
    if (at < 1 || text.charCodeAt(at) !== COMMA) continue;
    const comma = at;
    at -= 1;
    while (at >= 0 && isBlank(text.charCodeAt(at))) at -= 1;
    if (at >= 0 && text.charCodeAt(at) === CLOSE_BRACE) return comma;
  }
  return -1;
}

/** Pieces joined a few thousand at a time: a call takes only so many arguments. */
const MAX_SPREAD = 4096;

/** The pieces' elements in order (`concat` is several times faster than `flat` here). */
function joinParts(parts: readonly unknown[][]): unknown[] {
  let rows: unknown[] = [];
  for (let from = 0; from < parts.length; from += MAX_SPREAD) {
    rows = rows.concat(...parts.slice(from, from + MAX_SPREAD));
  }
  return rows;
}

/**
 * The elements of `text`, which starts with `[` (so is an array if it is JSON), or undefined.
 * With `exactMoney`, a money literal a double does not hold exactly is kept as its text
 * (`parseJsonExact`).
 */
function parseArray(text: string, exactMoney: boolean): unknown[] | undefined {
  try {
    return (exactMoney ? parseJsonExact(text) : JSON.parse(text)) as unknown[];
  } catch {
    return undefined;
  }
}

/**
 * Index of `text`'s first character that is not JSON whitespace (nor, where `bodyStart`, a
 * byte-order mark at its start), or -1.
 */
function firstSignificant(text: string, bodyStart: boolean): number {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (isBlank(code) || (code === BOM && i === 0 && bodyStart)) continue;
    return i;
  }
  return -1;
}
