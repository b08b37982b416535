/**
 * Identities and group labels become alert keys, state items, owed items and SNS messages, each
 * with a size limit (DynamoDB 400 KB, SNS 256 KB): an API value of any length must not make
 * them fail for good. A long one is kept as a prefix and a digest of the whole, so it stays
 * readable, distinct from every other and the same from one poll to the next.
 */

/** The longest identity or label kept whole. */
export const MAX_KEPT_LENGTH = 128;
/** What a longer one keeps of its start, before `…#` and its digest. */
const KEPT_PREFIX = 96;

/** `text` when it is at most `MAX_KEPT_LENGTH` long; else its start, `…#` and a digest of it. */
export function boundedText(text: string): string {
  if (text.length <= MAX_KEPT_LENGTH) return text;
  return `${startOf(text, KEPT_PREFIX)}…#${digest(text)}`;
}

/** The first `length` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
export function startOf(text: string, length: number): string {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/**
 * A 53-bit digest of every UTF-16 unit of `text` (cyrb53: two multiplicative 32-bit lanes,
 * mixed), in base 36. Not cryptographic: it only keeps long values apart, without loading
 * `node:crypto` into a cold start for a case that is rare.
 */
function digest(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
