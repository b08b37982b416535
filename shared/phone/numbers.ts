import {
  type CountryCode,
  type PhoneNumberType,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
} from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/max/metadata';

/*
 * Phone numbers people write (the rules file's `sms` and `ack.did`, a silence's matcher) read by
 * libphonenumber-js with its full metadata: valid for the country's numbering plan, normalised
 * to E.164, told mobile or not. Loaded by validation and the command line only: the pollers
 * read the API's numbers with `shared/records/phone.ts` (no metadata, on the hot path) and
 * compare them with the E.164 form validation stored.
 */

/** The country a number written without a country code is read as: the provider's (India). */
export const DEFAULT_COUNTRY: CountryCode = 'IN';

/** A number read: its E.164 form, the country it is of, and what kind of line it is. */
export interface PhoneNumberRead {
  readonly ok: true;
  /** `+919800000001`. */
  readonly e164: string;
  /** `IN`; undefined for a number of a shared code that names no one country (+800). */
  readonly country: CountryCode | undefined;
  /** `India (+91)`: how messages name where the number was read. */
  readonly where: string;
  /** `MOBILE`, `FIXED_LINE`, ...; undefined when the plan cannot tell. */
  readonly type: PhoneNumberType | undefined;
}

/** A number refused, and why, naming the country it was read as. */
export interface PhoneNumberRefused {
  readonly ok: false;
  readonly message: string;
}

export type PhoneNumberReading = PhoneNumberRead | PhoneNumberRefused;

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region' });

/** `Iran (+98)`; `+800` alone for a code of no one country. */
function placeOf(callingCode: string, country: CountryCode | undefined): string {
  const main = country ?? mainCountry(callingCode);
  // `001`: the metadata's region of the codes of no one country (+800, +882).
  if (main === undefined || main === '001') return `+${callingCode}`;
  return `${REGION_NAMES.of(main) ?? main} (+${callingCode})`;
}

/** The main country of a calling code (`1`: US, `44`: GB), as the metadata lists it first. */
function mainCountry(callingCode: string): string | undefined {
  const codes = (metadata as { country_calling_codes: Record<string, string[]> })
    .country_calling_codes[callingCode];
  return codes?.[0];
}

const KINDS: Readonly<Record<PhoneNumberType, string>> = {
  MOBILE: 'a mobile number',
  FIXED_LINE: 'a fixed-line number',
  FIXED_LINE_OR_MOBILE: 'a fixed-line or mobile number',
  TOLL_FREE: 'a toll-free number',
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  VOIP: 'a VoIP number',
  PERSONAL_NUMBER: 'a personal number',
  PAGER: 'a pager number',
  UAN: 'a company (UAN) number',
  VOICEMAIL: 'a voicemail number',
};

/** What kind of line a number is, in words (`a fixed-line number`). */
export function kindOfNumber(type: PhoneNumberType | undefined): string {
  return type === undefined ? 'a number of no known kind' : KINDS[type];
}

const LENGTH_WORDS: Readonly<Record<string, string>> = {
  TOO_SHORT: 'too short for a number there',
  TOO_LONG: 'too long for a number there',
  INVALID_LENGTH: 'of a length no number there has',
};

/** The number as people write it: digits, `+`, and spaces, `-`, `.`, parentheses between. */
const WRITTEN = /^\+?[\d\s().-]*\d[\d\s().-]*$/;

/**
 * Reads a phone number as written in the rules file: international, with `+` and the country
 * code, valid in that country's numbering plan (`+9800000001` is read as Iran's and refused:
 * too short there). Spaces and separators are allowed and dropped: the value is E.164.
 * A number written without `+` is refused with the E.164 form it has when read as India's.
 */
export function readInternationalNumber(input: string): PhoneNumberReading {
  const text = input.trim();
  if (!WRITTEN.test(text)) {
    return { ok: false, message: `${JSON.stringify(input)} is not a phone number` };
  }
  if (!text.startsWith('+')) {
    const national = parsePhoneNumberFromString(text, DEFAULT_COUNTRY);
    const message =
      national?.isValid() === true
        ? `has no country code: read as ${placeOf(national.countryCallingCode, national.country)} it is "${national.number}"; write that`
        : `has no country code, and is no number of ${placeOf('91', DEFAULT_COUNTRY)} either: write "+", the country code and the number`;
    return { ok: false, message: `${JSON.stringify(input)} ${message}` };
  }
  return readNumber(input, text, undefined);
}

/**
 * Reads a phone number as people type it on the command line (a silence's matcher): with `+`
 * and a country code, or national, read as India's (`08000000001`, `8000000001`).
 */
export function readWrittenNumber(input: string): PhoneNumberReading {
  const text = input.trim();
  if (!WRITTEN.test(text)) {
    return { ok: false, message: `${JSON.stringify(input)} is not a phone number` };
  }
  return readNumber(input, text, text.startsWith('+') ? undefined : DEFAULT_COUNTRY);
}

function readNumber(
  input: string,
  text: string,
  country: CountryCode | undefined,
): PhoneNumberReading {
  const parsed = parsePhoneNumberFromString(text, country);
  if (parsed === undefined) {
    const length = validatePhoneNumberLength(text, country);
    const reason =
      length === 'INVALID_COUNTRY' ? "its country code is no country's" : 'it is no number';
    return {
      ok: false,
      message: `${JSON.stringify(input)} is not a valid phone number: ${reason}`,
    };
  }
  const where = placeOf(parsed.countryCallingCode, parsed.country);
  if (!parsed.isValid()) {
    const length = validatePhoneNumberLength(text, country);
    const why = (length && LENGTH_WORDS[length]) ?? 'no number there (in no range of its plan)';
    const asIndian = parsePhoneNumberFromString(`+91${text.replace(/\D/g, '')}`);
    const hint =
      parsed.countryCallingCode !== '91' && asIndian?.isValid() === true
        ? `; for ${placeOf('91', DEFAULT_COUNTRY)} write "${asIndian.number}"`
        : '';
    return {
      ok: false,
      message: `${JSON.stringify(input)} is not a valid number: read as ${where}, it is ${why}${hint}`,
    };
  }
  return { ok: true, e164: parsed.number, country: parsed.country, where, type: parsed.getType() };
}

/** True for a line that takes SMS: mobile, or a plan that cannot tell fixed from mobile (US). */
export function takesSms(read: PhoneNumberRead): boolean {
  return read.type === 'MOBILE' || read.type === 'FIXED_LINE_OR_MOBILE';
}

/** The E.164 form of a number as people type it (`readWrittenNumber`); undefined if invalid. */
export function e164Of(text: string): string | undefined {
  const read = readWrittenNumber(text);
  return read.ok ? read.e164 : undefined;
}

/** True when two numbers as people type them are one valid number (`08000000001`, `+918000000001`). */
export function samePhoneNumber(a: string, b: string): boolean {
  const first = e164Of(a);
  return first !== undefined && first === e164Of(b);
}
