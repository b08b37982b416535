import { startOf } from '../records/bounded';
import { graphemeCount, PRINTABLE_ASCII } from './sms';

/** The longest field value a message shows whole. */
export const MAX_SHOWN_LENGTH = 256;
/** What a longer value shows of its start. */
const SHOWN_PREFIX = 200;

/**
 * A field value as a message shows it (a row of the email's record, a summary placeholder): on
 * one line, since a line break or control character in an API value becomes a space (a value
 * cannot add lines of its own to an email), well-formed UTF-16, and at most `MAX_SHOWN_LENGTH`
 * UTF-16 units: a longer one is cut and says how many characters it had, as a person counts them
 * (graphemes: 40 family emoji are 40 characters, not 440 units). A message stays far below SNS's
 * 256 KB and the state's item size whatever the API sends.
 */
export function shownValue(text: string): string {
  if (text.length <= MAX_SHOWN_LENGTH && PRINTABLE_ASCII.test(text)) return text;
  const line = onOneLine(text);
  if (line.length <= MAX_SHOWN_LENGTH) return line;
  return `${startOf(line, SHOWN_PREFIX)}… (${graphemeCount(line)} characters)`;
}

/**
 * `text` on one line, whole: each line break or control character a space, well-formed UTF-16.
 * For what a message must show in full (an alert key), where `shownValue` would cut.
 */
export function onOneLine(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  return text.toWellFormed().replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ');
}
