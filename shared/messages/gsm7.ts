/**
 * The GSM 03.38 default alphabet (7-bit) and its extension table. An SMS written only in these
 * characters holds 160 septets per segment, an extension character taking two; anything else
 * switches the whole message to UCS-2 and 70 UTF-16 code units.
 */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION = '\f^{}\\[~]|€';

const BASIC_SET = new Set(BASIC);
const EXTENSION_SET = new Set(EXTENSION);

/** Segment sizes (contract section 4). */
export const GSM7_SEGMENT = 160;
export const UCS2_SEGMENT = 70;

/** Septets one character costs in GSM-7: 1, 2 (extension table) or `undefined` (not GSM-7). */
export function gsm7Cost(char: string): 1 | 2 | undefined {
  if (BASIC_SET.has(char)) return 1;
  if (EXTENSION_SET.has(char)) return 2;
  return undefined;
}

/** True when every character of `text` is in the GSM-7 alphabet (extension included). */
export function isGsm7(text: string): boolean {
  for (const char of text) if (gsm7Cost(char) === undefined) return false;
  return true;
}

/** Septets `text` takes in GSM-7, or `undefined` when it cannot be sent in GSM-7. */
export function gsm7Length(text: string): number | undefined {
  let length = 0;
  for (const char of text) {
    const cost = gsm7Cost(char);
    if (cost === undefined) return undefined;
    length += cost;
  }
  return length;
}

/** Whether `text` fits one SMS segment: 160 GSM-7 septets, or 70 UTF-16 code units. */
export function fitsOneSegment(text: string): boolean {
  const septets = gsm7Length(text);
  return septets === undefined ? text.length <= UCS2_SEGMENT : septets <= GSM7_SEGMENT;
}
