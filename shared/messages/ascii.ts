import { oneLine, PRINTABLE_ASCII } from './sms';

/** Letters NFKD does not decompose into ASCII, and common punctuation. */
const REPLACEMENTS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'AE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  œ: 'oe',
  Œ: 'OE',
  '€': 'EUR',
  '₹': 'Rs',
  '£': 'GBP',
  '…': '...',
  '‘': "'",
  '’': "'",
  '“': '"',
  '”': '"',
  '–': '-',
  '—': '-',
};

/**
 * ASCII, one line: accents dropped (`é` -> `e`), a few letters and symbols spelled out, and
 * each run of other characters (Devanagari, emoji) replaced by one `?`, so a subject still shows
 * that something was there.
 */
export function toAscii(text: string): string {
  const line = oneLine(text);
  if (PRINTABLE_ASCII.test(line)) return line;
  const spelled = Array.from(line, (char) => REPLACEMENTS[char] ?? char).join('');
  return spelled
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]+/g, '?')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Cuts ASCII text to at most `max` characters, at a word boundary when one is near. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 3);
  const space = room.lastIndexOf(' ');
  return `${(space > max * 0.6 ? room.slice(0, space) : room).trimEnd()}...`;
}
