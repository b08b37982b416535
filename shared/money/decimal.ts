/**
 * Exact decimal money. Amounts arrive as strings ("100000.10") or JSON numbers (100000.1) and
 * are compared exactly: `100000.10 >= 100000.1` holds, with no float drift.
 */
export interface Decimal {
  /** The value times 10^scale. */
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The largest exponent read: far past any amount (a double ends near 1e308), and a bound on
 * the digits a text such as `1e999999999` would otherwise make.
 */
const MAX_EXPONENT = 400;

/** Reads decimal text, with an exponent only where `exponent` allows one. */
function readDecimal(text: string, exponent: boolean): Decimal | undefined {
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', power] = match;
  if (whole === '' && fraction === '') return undefined;
  if (power !== undefined && !exponent) return undefined;
  const shift = power === undefined ? 0 : Number(power);
  if (Math.abs(shift) > MAX_EXPONENT) return undefined;
  // The digits as one integer without its trailing zeros, then the point moved by the exponent.
  const all = `${whole || '0'}${fraction}`;
  const digits = all.replace(/0+$/, '');
  let scale = fraction.length - shift - (all.length - digits.length);
  let units = BigInt(`${sign}${digits || '0'}`);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units, scale: units === 0n ? 0 : scale };
}

/**
 * Reads `"1,234.50"`, `" 99 "`, `100000.1`, `1e21`, `"-3"`; `undefined` for anything else (a
 * text with an exponent too). A JSON number is read as the shortest decimal that is that
 * double (`String(number)`, exponent included): the exact text of a literal with more digits
 * than a double holds is the JSON reader's to keep (`records/exact-json.ts`).
 */
export function parseDecimal(input: unknown): Decimal | undefined {
  if (typeof input === 'number') {
    return Number.isFinite(input) ? readDecimal(String(input), true) : undefined;
  }
  if (typeof input !== 'string') return undefined;
  return readDecimal(input.trim().replaceAll(',', ''), false);
}

/** Reads a JSON number literal's text exactly (`1.00000000000000001e21`); `undefined` if none. */
export function parseNumberLiteral(text: string): Decimal | undefined {
  return readDecimal(text, true);
}

/** -1, 0 or 1. */
export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const left = a.units * 10n ** BigInt(scale - a.scale);
  const right = b.units * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Canonical text: no exponent, no trailing zeros, `"100000.1"`, `"-3"`, `"0"`. */
export function formatDecimal(value: Decimal): string {
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const whole = digits.slice(0, digits.length - value.scale);
  const fraction = digits.slice(digits.length - value.scale);
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Formats with exactly two decimals for people (`"1500.00"`); exact, no rounding up. */
export function formatMoney(value: Decimal): string {
  const canonical = formatDecimal(value);
  const [whole, fraction = ''] = canonical.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** Decimal digits a double tells apart exactly: plain decimals this long compare as doubles. */
const SAFE_DECIMAL_LENGTH = 15;

/** `-?D+(.D+)?` and short enough that `Number` keeps it exact relative to its neighbours. */
export function isShortPlainDecimal(text: string): boolean {
  return shortPlainDecimalValue(text) !== undefined;
}

/** Powers of ten a double holds exactly (up to 1e22). */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

/**
 * `Number(text)` for a short plain decimal (`isShortPlainDecimal`), read by character codes:
 * its at most 15 digits are an exact integer, and one division by an exact power of ten rounds
 * correctly, so the result is the same double. `undefined` for any other text.
 */
export function shortPlainDecimalValue(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > SAFE_DECIMAL_LENGTH) return undefined;
  const negative = text.charCodeAt(0) === 45;
  let units = 0;
  let digits = 0;
  let dot = -1;
  for (let index = negative ? 1 : 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) {
      units = units * 10 + (code - 48);
      digits += 1;
    } else if (code === 46 && dot === -1 && digits > 0 && index < length - 1) {
      dot = index;
    } else {
      return undefined;
    }
  }
  if (digits === 0) return undefined;
  const value = dot === -1 ? units : units / (POWERS_OF_TEN[length - 1 - dot] as number);
  return negative ? -value : value;
}
