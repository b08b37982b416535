import { GSM7_SEGMENT, gsm7Cost, gsm7Length, UCS2_SEGMENT } from './gsm7';

/** Made on first use: creating one loads ICU's break rules, ~20 ms of a cold start. */
let segmenter: Intl.Segmenter | undefined;

/** Control characters and line breaks become spaces: an SMS is one line. */
export function oneLine(text: string): string {
  return text
    .toWellFormed()
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Printable ASCII only: every character is a grapheme of its own. */
export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** `text` split into grapheme clusters (what a reader sees as one character). */
export function graphemes(text: string): string[] {
  // The segmenter costs about a millisecond a message; 10,000 first notifications add up.
  if (PRINTABLE_ASCII.test(text)) return text.split('');
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/**
 * How many characters a person counts in `text`: graphemes, so an emoji made of several code
 * points (a family, a flag) is one, where `length` counts UTF-16 units (11 for a family).
 */
export function graphemeCount(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let count = 0;
  for (const _ of segmenter.segment(text)) count++;
  return count;
}

/** Graphemes of `parts` that fit `limit` once `ellipsis` is added, by a cost per grapheme. */
function cut(
  parts: readonly string[],
  limit: number,
  cost: (grapheme: string) => number,
  ellipsis: string,
): string {
  const budget = limit - cost(ellipsis);
  let used = 0;
  let kept = '';
  for (const part of parts) {
    const next = cost(part);
    if (used + next > budget) break;
    used += next;
    kept += part;
  }
  return `${kept.trimEnd()}${ellipsis}`;
}

function septets(grapheme: string): number {
  let total = 0;
  for (const char of grapheme) total += gsm7Cost(char) ?? Number.POSITIVE_INFINITY;
  return total;
}

/**
 * Fits `text` into one SMS segment, cutting at a grapheme boundary (never inside a surrogate
 * pair, an emoji sequence or a Devanagari cluster) and marking the cut with an ellipsis.
 *
 * Text in GSM-7 keeps up to 160 septets and ends with `...` (`…` is not GSM-7 and would cost
 * the whole message its alphabet). Text with other characters keeps up to 70 UTF-16 units and
 * ends with `…`, unless cutting before the first non-GSM-7 character keeps more of the text
 * in GSM-7 (a long message whose Hindi name comes late).
 */
export function fitSms(input: string): string {
  const text = oneLine(input);
  // Most messages fit as they are: no need to split them into graphemes to learn that.
  const septetCount = gsm7Length(text);
  if (septetCount === undefined ? text.length <= UCS2_SEGMENT : septetCount <= GSM7_SEGMENT) {
    return text;
  }
  const parts = graphemes(text);
  const gsmPrefix: string[] = [];
  for (const part of parts) {
    if (!Number.isFinite(septets(part))) break;
    gsmPrefix.push(part);
  }
  if (gsmPrefix.length === parts.length) {
    const length = parts.reduce((sum, part) => sum + septets(part), 0);
    return length <= GSM7_SEGMENT ? text : cut(parts, GSM7_SEGMENT, septets, '...');
  }
  if (text.length <= UCS2_SEGMENT) return text;
  const ucs2 = cut(parts, UCS2_SEGMENT, (part) => part.length, '…');
  const gsm = cut(gsmPrefix, GSM7_SEGMENT, septets, '...');
  return graphemes(gsm).length > graphemes(ucs2).length ? gsm : ucs2;
}
