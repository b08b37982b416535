import { AGGREGATE_PLACEHOLDERS, parseTemplate } from '../messages/template';
import { FIELDS } from '../records/fields';
import type { Config } from '../types/config';
import { type ConfigIssue, formatPath } from './errors';

/**
 * What a valid rules file does that may not be what its author meant, told without refusing
 * it: a rule naming a field no document gives its source's records. The API sends more fields
 * than its documents list (api-notes), so such a field is read as text; if the API never sends
 * it, the rule never matches, and the author should know that it is on their word. And an
 * escalation step whose every channel keeps active hours (contract 6.1 rule 5): outside them
 * the step's page waits for the window, so an alert firing at night escalates to nobody awake.
 */
export function configWarnings(config: Config): ConfigIssue[] {
  const warnings: ConfigIssue[] = [];
  config.rules.forEach((rule, index) => {
    const catalogue = FIELDS[rule.source];
    const warn = (path: readonly PropertyKey[], field: string) =>
      warnings.push({
        path: formatPath(['rules', index, ...path]),
        message: `no document names the ${rule.source} field "${field}": it is read as text, and a record without it matches nothing`,
      });
    for (const field of Object.keys(rule.where)) {
      if (catalogue[field] === undefined) warn(['where', field], field);
    }
    rule.groupBy.forEach((field, i) => {
      if (catalogue[field] === undefined) warn(['groupBy', i], field);
    });
    (rule.escalate ?? []).forEach((step, i) => {
      const kept = step.notify.map((name) => config.channels[name]);
      if (kept.length === 0 || !kept.every((channel) => channel?.active !== undefined)) return;
      warnings.push({
        path: formatPath(['rules', index, 'escalate', i, 'notify']),
        message: `every channel of this step keeps active hours (${step.notify.join(', ')}): outside them the escalation waits for their window; add a channel without active hours to page at any time`,
      });
    });
    if (rule.summary !== undefined && rule.count === undefined) {
      const template = parseTemplate(rule.summary);
      const named = template.ok ? template.parts : [];
      const told = new Set<string>();
      for (const part of named) {
        if (
          part.kind === 'placeholder' &&
          !told.has(part.name) &&
          catalogue[part.name] === undefined &&
          !['rule', 'severity', ...AGGREGATE_PLACEHOLDERS].includes(part.name)
        ) {
          told.add(part.name);
          warn(['summary'], part.name);
        }
      }
    }
  });
  return warnings;
}
