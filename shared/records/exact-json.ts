import { compareDecimal, formatDecimal, parseDecimal, parseNumberLiteral } from '../money/decimal';
import type { SourceName } from '../types/config';
import { FIELDS } from './fields';

/*
 * A JSON number literal with more significant digits than a double holds (17 and up, or 16
 * that land between two doubles) is rounded by `JSON.parse`: `100000.0999999999999999` reads
 * as 100000.1 and would pass `>= 100000.1`. Money is compared exactly, so a money member's
 * literal that a double does not hold is kept as its exact decimal text, which the money
 * reader reads exactly, as it reads an amount sent as a string. The API's answers (`api/json-array.ts`)
 * and replay's timelines (`timeline/parse.ts`) both parse with `parseJsonExact`, so replay
 * and the deployed poller read one literal alike.
 */

/** Every field name of money kind, of any source. */
const MONEY_KEYS: readonly string[] = [
  ...new Set(
    Object.values(FIELDS).flatMap((fields) =>
      Object.keys(fields).filter((name) => fields[name] === 'money'),
    ),
  ),
];
const MONEY: ReadonlySet<string> = new Set(MONEY_KEYS);

/**
 * Whether `source`'s records have money fields: only then can an answer hold a literal to keep
 * exact, and only then is it searched for one (live calls have none: the search was about 6%
 * of reading a 20k-call answer).
 */
export function hasMoneyFields(source: SourceName): boolean {
  return Object.values(FIELDS[source]).includes('money');
}

/**
 * A money member whose value is a number literal of 16 characters or more: the only literals
 * a double may not hold (15 significant digits always round-trip). Most answers hold none.
 * One regular expression is the cheapest search measured: about 1 GB/s over a payments
 * answer, several times faster over live calls than `includes` of the keys, or a loop of
 * `indexOf`. It leaves out the key's opening quote, which every key and text begins with: the
 * regular expression then looks far fewer places over (about 30% faster on a payments
 * answer), and a member whose key only ends in a money key's name costs a parse with
 * `keepMoneyText`, which reads only the money keys themselves.
 */
const LONG_MONEY_LITERAL = new RegExp(`(?:${MONEY_KEYS.join('|')})"\\s*:\\s*-?[\\d.]{16}`);

/** What `JSON.parse` hands a reviver about a primitive (Node 22 and later): its source text. */
interface ReviverContext {
  readonly source?: string;
}

/**
 * A money literal whose value a double does not hold exactly, as its exact decimal text
 * (without an exponent, which amounts as text do not take); any other value as parsed.
 */
function keepMoneyText(key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || !MONEY.has(key)) return value;
  const source = context?.source;
  if (source === undefined || source.length < 16) return value;
  const written = parseNumberLiteral(source);
  const read = parseDecimal(value);
  if (written === undefined || read === undefined || compareDecimal(written, read) === 0) {
    return value;
  }
  return formatDecimal(written);
}

/**
 * `JSON.parse(text)`, except that a money member (`amount_paid`, `amount_added`,
 * `amount_tax`) whose number literal a double does not hold exactly is that literal's exact
 * decimal text (`"100000.0999999999999999"`). Everything else is exactly `JSON.parse`'s, and so is the
 * whole result when no such literal is in the text (the usual answer: one search of it).
 *
 * @throws SyntaxError as `JSON.parse` does.
 */
export function parseJsonExact(text: string): unknown {
  if (!LONG_MONEY_LITERAL.test(text)) return JSON.parse(text);
  // The context is the reviver's third argument (Node 22 and later; TypeScript's lib does not
  // declare it yet, and an optional parameter fits the declared reviver).
  return JSON.parse(text, keepMoneyText);
}
