/**
 * The country code assumed for national numbers. The provider is Indian (api-notes), so a
 * 10-digit number or one with a trunk `0` is read as +91.
 */
export const DEFAULT_COUNTRY_CODE = '91';

/**
 * Canonical form of a phone number, so one number written several ways is one value:
 * `+918000000001`, `918000000001`, `08000000001` and `8000000001` all become `+918000000001`.
 * Short codes and extensions (fewer than 10 digits) are kept as their digits.
 */
export function canonicalPhone(input: string | number): string {
  const text = String(input).trim();
  const digits = text.replace(/\D/g, '');
  if (digits === '') return text;
  if (digits.length < 10) return digits;
  if (digits.length === 10) return `+${DEFAULT_COUNTRY_CODE}${digits}`;
  if (digits.length === 11 && digits.startsWith('0')) {
    return `+${DEFAULT_COUNTRY_CODE}${digits.slice(1)}`;
  }
  return `+${digits.replace(/^00/, '')}`;
}

/** A comma-separated list of phones (a destination that rings several agents). */
export function canonicalPhones(input: string | number): string[] {
  return String(input)
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(canonicalPhone);
}
