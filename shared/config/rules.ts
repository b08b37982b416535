import { compileCount, conditionText } from '../conditions/compile';
import { kindIsOrdered, readConditionValue } from '../conditions/values';
import { AGGREGATE_PLACEHOLDERS, parseTemplate, placeholdersFor } from '../messages/template';
import { DERIVED_FIELDS, FIELD_ALIASES, FIELDS, type FieldKind } from '../records/fields';
import { tryParseDuration } from '../time/duration';
import {
  type Condition,
  OPERATORS,
  type Operator,
  SOURCES,
  type SourceName,
} from '../types/config';
import { type ConfigIssue, formatPath } from './errors';
import { didYouMean } from './hints';

/**
 * The checks of one rule that need more than its own shape: fields of its source, condition
 * values read by field kind, channels that exist, placeholders a summary may use.
 */

const OPERATOR_LIST = 'operator must be one of >, <, >=, <=, <>';
/** Characters that can only mean an attempted operator at the start of a condition value. */
const OPERATOR_LIKE = /^([<>=!]+)\s*(.*)$/s;

const KIND_WORDS: Readonly<Record<FieldKind, string>> = {
  text: 'text',
  phone: 'a phone number',
  phones: 'a phone number',
  number: 'a number',
  money: 'an amount (a decimal number such as 100000 or 1499.50)',
  duration: 'a duration (90s, 15m, 2h, HH:MM:SS or seconds)',
  time: 'a timestamp',
  direction: '1, 2, inbound or outbound',
};

/** A value, or why not: `message` about the whole, `items` about list items by index. */
type Checked<T> = {
  readonly value?: T;
  readonly message?: string;
  readonly items?: readonly { readonly index: number; readonly message: string }[];
};

function scalarText(input: unknown): string | undefined {
  if (typeof input === 'string') return input.trim();
  if (typeof input === 'number' && Number.isFinite(input)) return String(input);
  if (typeof input === 'boolean') return String(input);
  return undefined;
}

function unreadable(kind: FieldKind, value: string): string {
  return `"${value}" is not ${KIND_WORDS[kind]}`;
}

/** Reads one `where` value (scalar, list, or `"OP VALUE"`) for a field of `kind`. */
export function readCondition(field: string, kind: FieldKind, input: unknown): Checked<Condition> {
  if (Array.isArray(input)) {
    if (input.length === 0) return { message: 'an empty list matches nothing; list some values' };
    const values: string[] = [];
    const items: { index: number; message: string }[] = [];
    for (const [index, item] of input.entries()) {
      const text = scalarText(item);
      if (text === undefined) items.push({ index, message: 'must be text, a number or a boolean' });
      else if (readConditionValue(kind, text) === undefined)
        items.push({ index, message: unreadable(kind, text) });
      else values.push(text);
    }
    return items.length > 0 ? { items } : { value: { kind: 'equals', values } };
  }
  const text = scalarText(input);
  if (text === undefined) {
    return { message: 'must be a value, a list of values, or "OP VALUE" (e.g. "> 5")' };
  }
  const operator = OPERATOR_LIKE.exec(text);
  if (operator === null || typeof input !== 'string') {
    if (readConditionValue(kind, text) !== undefined) {
      return { value: { kind: 'equals', values: [text] } };
    }
    // `~ 5` on a number, amount, duration or direction: no value of those starts with a
    // symbol, so it is an operator telealert does not know, not a value it cannot read.
    const symbol =
      kind === 'text' || kind === 'time' || kind === 'phone' || kind === 'phones'
        ? null
        : SYMBOL_PREFIX.exec(text);
    if (symbol !== null && typeof input === 'string') {
      return { message: `unknown operator "${symbol[1]}": ${OPERATOR_LIST}` };
    }
    return { message: unreadable(kind, text) };
  }
  const [, opText = '', rest = ''] = operator;
  if (!(OPERATORS as readonly string[]).includes(opText)) return { message: OPERATOR_LIST };
  const op = opText as Operator;
  const value = rest.trim();
  if (value === '') return { message: `"${text}" has no value after ${op}` };
  if (op !== '<>' && !kindIsOrdered(kind)) {
    const instead =
      kind === 'time' ? '; compare age instead (e.g. age: "> 30m")' : '; use <> or equality';
    return { message: `${op} does not apply to ${field} (${kind})${instead}` };
  }
  if (readConditionValue(kind, value) === undefined) return { message: unreadable(kind, value) };
  return { value: { kind: 'compare', op, value } };
}

/**
 * At the start of a count, any run of punctuation or symbols is an attempted operator (`~`,
 * `≥`, `=>`): a count is a number, so no text value could start that way.
 */
const COUNT_OPERATOR_LIKE = /^([\p{P}\p{S}]+)\s*(.*)$/su;
/** The same at the start of a number, amount, duration or direction, but for a sign, `.` or `_`. */
const SYMBOL_PREFIX = /^((?:(?![-+._])[\p{P}\p{S}])+)\s*\S/u;
/** The largest count a rule may name: far above the records any poll holds, exact as a number. */
export const MAX_COUNT = 1_000_000_000;

/** Reads `count`: a whole number (equality, like any scalar) or `"OP N"`. */
export function readCount(input: unknown): Checked<Condition> {
  const text = scalarText(input);
  if (text === undefined || typeof input === 'boolean') {
    return { message: 'must be a whole number or "OP N" (e.g. "> 5")' };
  }
  const operator = COUNT_OPERATOR_LIKE.exec(text);
  const [opText, value] = operator ? [operator[1] ?? '', (operator[2] ?? '').trim()] : ['', text];
  if (operator && !(OPERATORS as readonly string[]).includes(opText))
    return { message: `unknown operator "${opText}": ${OPERATOR_LIST}` };
  if (!/^\d+$/.test(value)) return { message: `"${value}" is not a whole number of records` };
  if (Number(value) > MAX_COUNT) {
    return { message: `${value} is more records than any poll holds: at most ${MAX_COUNT}` };
  }
  return operator
    ? { value: { kind: 'compare', op: opText as Operator, value } }
    : { value: { kind: 'equals', values: [value] } };
}

/**
 * A name that may be an undocumented field: a letter, then letters, digits and `_` (the API's
 * own names are snake_case), and no member of every object (`constructor`, `__proto__`), which
 * a record's fields must never be confused with.
 */
function isUndocumentedFieldName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) && !(name in Object.prototype);
}

export interface RuleChecks {
  readonly where: Readonly<Record<string, Condition>>;
  readonly count?: Condition;
  readonly issues: readonly ConfigIssue[];
}

function isRecord(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

function stringList(input: unknown): string[] {
  return Array.isArray(input) ? input.filter((item) => typeof item === 'string') : [];
}

/**
 * An escalation's references and order: each step's channels exist, steps come later and
 * later, and the rule tells its resolutions (an alert's escalation stops when it resolves; a
 * rule with `resolved: false` never says so, and would escalate alerts long gone).
 */
function checkEscalate(
  raw: Record<string, unknown>,
  channels: ReadonlySet<string>,
  issue: (path: readonly PropertyKey[], message: string) => void,
): void {
  if (!Array.isArray(raw.escalate)) return;
  if (raw.resolved === false) {
    issue(
      ['escalate'],
      'needs the rule to tell its resolutions (an escalation stops when the alert resolves): drop resolved: false',
    );
  }
  let previous: number | undefined;
  raw.escalate.forEach((step: unknown, i) => {
    if (!isRecord(step)) return;
    stringList(step.notify).forEach((channel, j) => {
      if (!channels.has(channel)) {
        issue(
          ['escalate', i, 'notify', j],
          `no channel named "${channel}"${didYouMean(channel, channels)}`,
        );
      }
    });
    const after = typeof step.after === 'string' ? tryParseDuration(step.after) : undefined;
    if (after === undefined) return;
    if (previous !== undefined && after <= previous) {
      issue(['escalate', i, 'after'], 'must be later than the step before (steps run in order)');
    }
    previous = after;
  });
}

/**
 * Checks a rule's conditions and references. `raw` is the rule as written; each check runs
 * on whatever part is well-formed, so every problem is reported together.
 */
export function checkRule(
  raw: Record<string, unknown>,
  index: number,
  channels: ReadonlySet<string>,
): RuleChecks {
  const base: PropertyKey[] = ['rules', index];
  const issues: ConfigIssue[] = [];
  const issue = (path: readonly PropertyKey[], message: string) =>
    issues.push({ path: formatPath([...base, ...path]), message });
  const source = (SOURCES as readonly unknown[]).includes(raw.source)
    ? (raw.source as SourceName)
    : undefined;
  const fields = source ? FIELDS[source] : undefined;
  /**
   * A name no document gives the source's records is read as text (the API sends more than
   * its documents say; `configWarnings` tells the user), unless it is so close to a documented
   * name that it is a typo: that is refused, naming the field meant.
   */
  const typo = (name: string): string | undefined => {
    if (source === undefined || fields === undefined || fields[name] !== undefined)
      return undefined;
    const alias = FIELD_ALIASES[source][name];
    if (alias !== undefined) {
      return `the API's ${name} is read as ${alias} (the documents name it both ways): write ${alias}`;
    }
    const hint = didYouMean(name, Object.keys(fields));
    if (hint === '' && isUndocumentedFieldName(name)) return undefined;
    const known = hint || `; ${source} fields are ${Object.keys(fields).join(', ')}`;
    return `${source} records have no field "${name}"${known}`;
  };

  const where: Record<string, Condition> = {};
  if (fields && isRecord(raw.where)) {
    for (const [field, input] of Object.entries(raw.where)) {
      const misspelt = typo(field);
      if (misspelt !== undefined) {
        issue(['where', field], misspelt);
        continue;
      }
      const kind = fields[field] ?? 'text';
      const condition = readCondition(field, kind, input);
      if (condition.message !== undefined) issue(['where', field], condition.message);
      for (const item of condition.items ?? []) issue(['where', field, item.index], item.message);
      if (condition.value) where[field] = condition.value;
    }
  }

  let count: Condition | undefined;
  if (raw.count !== undefined) {
    const checked = readCount(raw.count);
    if (checked.message !== undefined) issue(['count'], checked.message);
    count = checked.value;
  }

  if (raw.groupBy !== undefined && raw.count === undefined) {
    issue(['groupBy'], 'groupBy needs count: only aggregate rules group records');
  }
  const groupBy = stringList(raw.groupBy);
  if (fields) {
    groupBy.forEach((field, i) => {
      const misspelt = typo(field);
      if (misspelt !== undefined) {
        issue(['groupBy', i], misspelt);
      } else if ((DERIVED_FIELDS as readonly string[]).includes(field)) {
        issue(['groupBy', i], `cannot group by ${field}: it differs for every record`);
      }
    });
  }
  if (new Set(groupBy).size !== groupBy.length) issue(['groupBy'], 'lists a field twice');
  if (count && groupBy.length > 0 && compileCount(count)(0)) {
    // A group exists only while some record is in it: a count that holds at 0 could never
    // be seen for the empty groups it is meant to catch.
    issue(
      ['count'],
      `${conditionText(count)} holds for an empty group, which groupBy cannot see (a group exists only while it has records): use >, >= or a count above 0, or drop groupBy`,
    );
  }

  const notify = stringList(raw.notify);
  notify.forEach((channel, i) => {
    if (!channels.has(channel)) {
      issue(['notify', i], `no channel named "${channel}"${didYouMean(channel, channels)}`);
    }
  });
  if (new Set(notify).size !== notify.length) issue(['notify'], 'lists a channel twice');
  checkEscalate(raw, channels, issue);

  if (typeof raw.summary === 'string' && source) {
    const parsed = parseTemplate(raw.summary);
    if (!parsed.ok) issue(['summary'], parsed.message);
    else {
      const allowed = placeholdersFor({ source, groupBy, count: raw.count });
      for (const part of parsed.parts) {
        if (part.kind !== 'placeholder' || allowed.has(part.name)) continue;
        // A per-record rule's summary may name a field no document names, read as text,
        // unless the name is a typo of one it may use.
        const alias = FIELD_ALIASES[source][part.name];
        const close = alias === undefined ? didYouMean(part.name, allowed) : `; write {${alias}}`;
        const aggregateOnly = AGGREGATE_PLACEHOLDERS.includes(part.name);
        if (raw.count === undefined && close === '' && !aggregateOnly) continue;
        const hint = close || `; this rule can use ${[...allowed].join(', ')}`;
        issue(['summary'], `unknown placeholder {${part.name}}${hint}`);
      }
    }
  }
  return { where, count, issues };
}
