/** The number written by the two decimal digits at `at`, or -1 when they are not both digits. */
export function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const units = text.charCodeAt(at + 1) - 48;
  return tens < 0 || tens > 9 || units < 0 || units > 9 ? -1 : tens * 10 + units;
}

/** The number written by the four decimal digits at `at`, or -1. */
export function fourDigits(text: string, at: number): number {
  const high = twoDigits(text, at);
  const low = twoDigits(text, at + 2);
  return high < 0 || low < 0 ? -1 : high * 100 + low;
}
