import { startOf } from '../records/bounded';
import { PRINTABLE_ASCII } from './sms';

/** The longest field value a message shows whole. */
export const MAX_SHOWN_LENGTH = 256;
/** What a longer value shows of its start. */
const SHOWN_PREFIX = 200;

/**
 * A field value as a message shows it (a row of the email's record, a summary placeholder): on
 * one line, since a line break or control character in an API value becomes a space (a value
 * cannot add lines of its own to an email), well-formed UTF-16, and at most `MAX_SHOWN_LENGTH`
 * characters: a longer one is cut and says how long it was. A message stays far below SNS's
 * 256 KB and the state's item size whatever the API sends.
 */
export function shownValue(text: string): string {
  if (text.length <= MAX_SHOWN_LENGTH && PRINTABLE_ASCII.test(text)) return text;
  const line = onOneLine(text);
  if (line.length <= MAX_SHOWN_LENGTH) return line;
  return `${startOf(line, SHOWN_PREFIX)}… (${line.length} characters)`;
}

/**
 * `text` on one line, whole: each line break or control character a space, well-formed UTF-16.
 * For what a message must show in full (an alert key), where `shownValue` would cut.
 */
export function onOneLine(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  return text.toWellFormed().replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ');
}
