import { FIELDS } from '../records/fields';
import type { RuleConfig } from '../types/config';

/**
 * `summary` templates: `{name}` is a placeholder, `{{` and `}}` stand for literal braces (as
 * in Python's `str.format`). A lone `}` is kept as written; a `{` that is not closed, or
 * whose content is not a name (`[A-Za-z_][A-Za-z0-9_]*`), is an error.
 */
export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'placeholder'; readonly name: string };

export type ParsedTemplate =
  | { readonly ok: true; readonly parts: readonly TemplatePart[] }
  | { readonly ok: false; readonly message: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits a template into text and placeholders, or says why it cannot be read. */
export function parseTemplate(template: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    const char = template[i];
    if (char === '{' && template[i + 1] === '{') {
      text += '{';
      i += 2;
    } else if (char === '}' && template[i + 1] === '}') {
      text += '}';
      i += 2;
    } else if (char === '{') {
      const end = template.indexOf('}', i + 1);
      if (end < 0) {
        return {
          ok: false,
          message: `"{" at position ${i + 1} is not closed; write {{ for a brace`,
        };
      }
      const name = template.slice(i + 1, end);
      if (!NAME.test(name)) {
        return { ok: false, message: `"{${name}}" is not a placeholder; write {{ for a brace` };
      }
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      parts.push({ kind: 'placeholder', name });
      i = end + 1;
    } else {
      text += char;
      i += 1;
    }
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return { ok: true, parts };
}

/** Placeholders only an aggregate rule's message fills (from the count, not a record). */
export const AGGREGATE_PLACEHOLDERS: readonly string[] = ['count', 'value', 'threshold'];

/** The part of a rule that decides which placeholders its summary may use. */
export type TemplateRule = Pick<RuleConfig, 'source' | 'groupBy'> & {
  readonly count?: unknown;
};

/**
 * Placeholders a rule's `summary` may name. Aggregate rules (with `count`): `count`, `value`
 * (the same number), `threshold` (e.g. `> 5`), `rule`, `severity` and the `groupBy` fields.
 * Per-record rules: `rule`, `severity` and every field of the source, derived `age` included.
 */
export function placeholdersFor(rule: TemplateRule): Set<string> {
  const names = new Set(['rule', 'severity']);
  if (rule.count !== undefined) {
    for (const name of [...AGGREGATE_PLACEHOLDERS, ...rule.groupBy]) names.add(name);
  } else {
    for (const name of Object.keys(FIELDS[rule.source])) names.add(name);
  }
  return names;
}

/**
 * Fills a template. A placeholder without a value (a field the record did not carry) becomes
 * `?`, so a summary never silently loses a word; an unreadable template is returned as written
 * (validation refuses those before anything renders).
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const parsed = parseTemplate(template);
  if (!parsed.ok) return template;
  return parsed.parts
    .map((part) => (part.kind === 'text' ? part.text : (values[part.name] ?? '?')))
    .join('');
}
