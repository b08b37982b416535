import { GSM7_SEGMENT, gsm7Cost, gsm7Length, isGsm7, UCS2_SEGMENT } from './gsm7';
import { graphemes, oneLine } from './sms';

/*
 * India's DLT content templates (contract section 7). Carriers deliver an SMS only when it is a
 * registered template with each `{#var#}` slot filled by at most 30 characters; anything else
 * is dropped. So with `dlt`, the SMS is built from the template, never the other way round.
 */

/** DLT's variable slot, written exactly so in a registered template. */
export const DLT_SLOT = '{#var#}';
/** DLT lets a slot hold at most 30 characters. */
export const DLT_SLOT_MAX = 30;
/** Room a template must leave, beyond one character per slot, for the alert itself. */
const MIN_ROOM = 20;

/** Why `template` cannot carry an alert in one SMS segment, or undefined when it can. */
export function dltTemplateProblem(template: string): string | undefined {
  const parts = template.split(DLT_SLOT);
  const slots = parts.length - 1;
  if (slots === 0) {
    return `has no ${DLT_SLOT} slot, so no alert fits in it: register a template with at least one`;
  }
  const constant = parts.join('');
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(constant)) {
    return 'has a line break or control character: telealert sends every SMS as one line';
  }
  const stray = /\{#[^{}]*#\}/.exec(constant);
  if (stray) {
    return `has ${stray[0]}: telealert fills only ${DLT_SLOT} slots, DLT's variable, written exactly so`;
  }
  const septets = gsm7Length(constant);
  const [used, segment, alphabet] =
    septets === undefined
      ? [constant.length, UCS2_SEGMENT, 'UCS-2 (it has characters outside GSM-7)']
      : [septets, GSM7_SEGMENT, 'GSM-7'];
  if (used + slots + MIN_ROOM > segment) {
    return `has ${used} characters of fixed text and ${slots} slot(s): one SMS segment in ${alphabet} holds ${segment}, leaving less than ${MIN_ROOM} for the alert; shorten its fixed text`;
  }
  return undefined;
}

interface Alphabet {
  readonly cost: (grapheme: string) => number;
  readonly ellipsis: string;
}

const GSM7: Alphabet = {
  cost: (grapheme) => {
    let total = 0;
    for (const char of grapheme) total += gsm7Cost(char) ?? Number.POSITIVE_INFINITY;
    return total;
  },
  // `…` is not GSM-7: it would switch the whole message to UCS-2.
  ellipsis: '...',
};

const UCS2: Alphabet = { cost: (grapheme) => grapheme.length, ellipsis: '…' };

function costOf(text: string, alphabet: Alphabet): number {
  let total = 0;
  for (const part of graphemes(text)) total += alphabet.cost(part);
  return total;
}

/**
 * `text` within `room` by the alphabet's cost, cut at a grapheme and marked when cut; empty
 * when there is no room for even the mark (a fact cut unmarked would read as whole).
 */
function shorten(text: string, room: number, alphabet: Alphabet): string {
  if (costOf(text, alphabet) <= room) return text;
  const budget = room - costOf(alphabet.ellipsis, alphabet);
  let used = 0;
  let kept = '';
  for (const part of graphemes(text)) {
    const next = alphabet.cost(part);
    if (used + next > budget) break;
    used += next;
    kept += part;
  }
  kept = kept.trimEnd();
  return kept === '' ? '' : `${kept}${alphabet.ellipsis}`;
}

/** At most `DLT_SLOT_MAX` UTF-16 units (never fewer characters than DLT counts). */
function capSlot(text: string, max = DLT_SLOT_MAX): string {
  return shorten(text, max, isGsm7(text) ? { ...UCS2, ellipsis: '...' } : UCS2);
}

/** The last slot when facts outnumber slots: as many whole facts as fit, then `+N more`. */
function lastSlot(rest: readonly string[]): string {
  for (let kept = rest.length; kept >= 1; kept -= 1) {
    const more = kept < rest.length ? ` +${rest.length - kept} more` : '';
    const text = `${rest.slice(0, kept).join('; ')}${more}`;
    if (text.length <= DLT_SLOT_MAX) return text;
  }
  const more = rest.length > 1 ? ` +${rest.length - 1} more` : '';
  return `${capSlot(rest[0] ?? '', DLT_SLOT_MAX - more.length)}${more}`;
}

/** One value per slot, most important first, each within the slot limit; `-` for none. */
function slotValues(facts: readonly string[], slots: number): string[] {
  const texts = facts.map(oneLine).filter((text) => text !== '');
  if (texts.length <= slots) {
    return Array.from({ length: slots }, (_, i) => capSlot(texts[i] ?? '-'));
  }
  return [
    ...texts.slice(0, slots - 1).map((text) => capSlot(text)),
    lastSlot(texts.slice(slots - 1)),
  ];
}

/**
 * Values within `budget`, the first (most important) served first; every later slot keeps
 * room for `-`. `cut` tells whether any value lost characters.
 */
function fitValues(
  values: readonly string[],
  budget: number,
  alphabet: Alphabet,
): { values: string[]; cut: boolean } {
  let left = budget;
  let cut = false;
  const fitted = values.map((value, index) => {
    const room = left - (values.length - index - 1);
    let text = shorten(value, room, alphabet);
    if (text !== value) cut = true;
    if (text === '') text = '-';
    left -= costOf(text, alphabet);
    return text;
  });
  return { values: fitted, cut };
}

/** Each run of graphemes outside GSM-7 as one `?`. */
function toGsm7(text: string): string {
  return graphemes(text)
    .map((part) => (isGsm7(part) ? part : '?'))
    .join('')
    .replace(/\?{2,}/g, '?');
}

function shown(values: readonly string[]): number {
  return values.reduce(
    (sum, value) => sum + graphemes(value).filter((part) => part !== '?').length,
    0,
  );
}

/**
 * The SMS for a DLT template: `template` with each `{#var#}` filled, in order, by the facts
 * (most important first), each slot at most 30 characters and the whole one SMS segment (160
 * GSM-7 septets, or 70 UTF-16 units once any character is outside GSM-7). When there are more
 * facts than slots, the last slot holds what fits of the rest and says how many are left
 * (`+3 more`); a slot with no fact holds `-`. Facts are cut at a grapheme and marked (`...`,
 * or `…` in UCS-2), the least important first. When Hindi or emoji in a fact would switch a
 * message to UCS-2 and cost more than it shows, those characters become `?` instead.
 *
 * The template is expected to pass `dltTemplateProblem`; one with no slot comes back as is.
 */
export function fillDltTemplate(template: string, facts: readonly string[]): string {
  const parts = template.split(DLT_SLOT);
  const slots = parts.length - 1;
  if (slots === 0) return template;
  const values = slotValues(facts, slots);
  const constant = parts.join('');
  const septets = gsm7Length(constant);
  let chosen: readonly string[];
  if (septets !== undefined && values.every(isGsm7)) {
    chosen = fitValues(values, GSM7_SEGMENT - septets, GSM7).values;
  } else {
    const ucsBudget = UCS2_SEGMENT - constant.length;
    const ucs = ucsBudget >= slots ? fitValues(values, ucsBudget, UCS2) : undefined;
    if (septets === undefined || (ucs !== undefined && !ucs.cut)) {
      chosen = (ucs ?? fitValues(values, Math.max(ucsBudget, slots), UCS2)).values;
    } else {
      const gsm = fitValues(values.map(toGsm7), GSM7_SEGMENT - septets, GSM7).values;
      chosen = ucs === undefined || shown(gsm) > shown(ucs.values) ? gsm : ucs.values;
    }
  }
  return parts.reduce((text, part, index) => `${text}${chosen[index - 1] ?? ''}${part}`);
}
