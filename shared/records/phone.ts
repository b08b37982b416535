/**
 * The country code assumed for national numbers. The provider is Indian (api-notes), so a
 * 10-digit number or one with a trunk `0` is read as +91.
 */
export const DEFAULT_COUNTRY_CODE = '91';

/**
 * A phone number as people write one: digits, a leading `+`, and the separators of a written
 * number (spaces, `-`, `.`, parentheses). Anything else (`+91 abc`, `anonymous`) is no number.
 */
const WRITTEN_PHONE = /^\+?[\d\s().-]*\d[\d\s().-]*$/;

/** True when `text` is a phone number as people write one (see `WRITTEN_PHONE`). */
export function isWrittenPhone(text: string): boolean {
  return WRITTEN_PHONE.test(text.trim());
}

/**
 * Canonical form of a phone number, so one number written several ways is one value:
 * `+918000000001`, `918000000001`, `08000000001` and `8000000001` all become `+918000000001`.
 * Short codes and extensions (fewer than 10 digits) are kept as their digits. Text that is no
 * phone number (`+91 abc`, `anonymous`) is kept as it was sent, trimmed: its digits alone
 * (`91`) would be another, wrong number, one a condition could match.
 */
export function canonicalPhone(input: string | number): string {
  if (typeof input === 'string') {
    const plain = plainPhone(input);
    if (plain !== undefined) return plain;
  }
  const text = String(input).trim();
  if (!WRITTEN_PHONE.test(text)) return text;
  const digits = text.replace(/\D/g, '');
  if (digits.length < 10) return digits;
  if (digits.length === 10) return `+${DEFAULT_COUNTRY_CODE}${digits}`;
  if (digits.length === 11 && digits.startsWith('0')) {
    return `+${DEFAULT_COUNTRY_CODE}${digits.slice(1)}`;
  }
  return `+${digits.replace(/^00/, '')}`;
}

const PLUS = 43;
const ZERO = 48;
const NINE = 57;

/**
 * `canonicalPhone` of digits with an optional leading `+` (what the API sends), without a
 * regex or a copy of the digits; `undefined` for anything else, which the general path reads.
 */
function plainPhone(text: string): string | undefined {
  const length = text.length;
  const plus = length > 0 && text.charCodeAt(0) === PLUS;
  const start = plus ? 1 : 0;
  for (let index = start; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < ZERO || code > NINE) return undefined;
  }
  const digits = length - start;
  if (digits === 0) return undefined;
  if (digits < 10) return plus ? text.slice(1) : text;
  if (digits === 10) return `+${DEFAULT_COUNTRY_CODE}${plus ? text.slice(1) : text}`;
  const trunk = text.charCodeAt(start) === ZERO;
  if (digits === 11 && trunk) return `+${DEFAULT_COUNTRY_CODE}${text.slice(start + 1)}`;
  // An international 00 prefix: the general path drops it.
  if (trunk && text.charCodeAt(start + 1) === ZERO) return undefined;
  return plus ? text : `+${text}`;
}

/** A comma-separated list of phones (a destination that rings several agents). */
export function canonicalPhones(input: string | number): string[] {
  if (typeof input === 'string' && !input.includes(',') && !input.includes(';')) {
    // One phone, the usual case: no split, map and filter.
    const text = input.trim();
    return text === '' ? [] : [canonicalPhone(text)];
  }
  return String(input)
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(canonicalPhone);
}

/**
 * The one identity of a list of canonical phones, whatever order and repeats the API sends it
 * in (`+919812300011,+919812300012` and `919812300012, 9812300011` are one list once
 * canonical): sorted, de-duplicated, joined by `,`. What a group of `destination` is keyed by.
 */
export function phoneListIdentity(phones: readonly string[]): string {
  if (phones.length === 1) return phones[0] as string;
  return [...new Set(phones)].sort().join(',');
}

/**
 * True only for text `canonicalPhone` returns unchanged, found without building anything: a
 * number already canonical (`+918000000001`, a short code `101`), as every normalised record
 * phone is. False tells nothing: the caller canonicalises.
 */
export function isCanonicalPhone(text: string): boolean {
  const length = text.length;
  if (length === 0) return false;
  const plus = text.charCodeAt(0) === 43;
  for (let index = plus ? 1 : 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  const digits = plus ? length - 1 : length;
  if (!plus) return digits > 0 && digits < 10;
  // `+` and 11 or more digits, none of which `canonicalPhone` rewrites (a trunk 0, an 00 prefix).
  if (digits < 11 || text.charCodeAt(1) === 48) return false;
  return true;
}
