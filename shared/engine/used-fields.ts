import type { Config, SourceName } from '../config/types';
import { parseTemplate } from '../messages/template';
import { FIELDS } from '../records/fields';

/**
 * Fields the pollers' metrics read besides the rules (`functions/observe.ts`: calls by state,
 * pending payments).
 */
const METRIC_FIELDS: Readonly<Record<SourceName, readonly string[]>> = {
  live_calls: ['state'],
  payments: ['status'],
};

/**
 * The record fields anything reads of a source: every rule's conditions, `groupBy` and summary
 * placeholders, and the metrics' fields (identity and `created_at` are read anyway). What the
 * runner asks the parser for (`ParseOptions.fields`); a message that tells a whole record reads
 * the rest then.
 */
export function usedFields(config: Config, source: SourceName): ReadonlySet<string> {
  const catalogue = FIELDS[source];
  const used = new Set<string>(METRIC_FIELDS[source]);
  for (const rule of config.rules) {
    if (rule.source !== source) continue;
    for (const field of Object.keys(rule.where)) used.add(field);
    for (const field of rule.groupBy) used.add(field);
    const template = rule.summary === undefined ? undefined : parseTemplate(rule.summary);
    if (template?.ok) {
      for (const part of template.parts) {
        if (part.kind === 'placeholder' && Object.hasOwn(catalogue, part.name)) used.add(part.name);
      }
    }
  }
  return used;
}
