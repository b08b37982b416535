import { AGGREGATE_PLACEHOLDERS, parseTemplate } from '../messages/template';
import { FIELDS } from '../records/fields';
import type { Config, SourceName } from '../types/config';

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
 * placeholders (documented or not), and the metrics' fields (identity and `created_at` are read anyway). What the
 * runner asks the parser for (`ParseOptions.fields`); a message that tells a whole record reads
 * the rest then.
 */
export function usedFields(config: Config, source: SourceName): ReadonlySet<string> {
  const used = new Set<string>(METRIC_FIELDS[source]);
  for (const rule of config.rules) {
    if (rule.source !== source) continue;
    for (const field of Object.keys(rule.where)) used.add(field);
    for (const field of rule.groupBy) used.add(field);
    const template = rule.summary === undefined ? undefined : parseTemplate(rule.summary);
    if (template?.ok) {
      for (const part of template.parts) {
        if (part.kind === 'placeholder' && !MESSAGE_PLACEHOLDERS.has(part.name))
          used.add(part.name);
      }
    }
  }
  // Calls to ack.did are told apart by number and caller (`ack-calls.ts`).
  if (source === 'live_calls' && config.ack !== undefined) used.add('did').add('source');
  return used;
}

/** Placeholders a message fills itself, never from a record (`placeholdersFor`). */
const MESSAGE_PLACEHOLDERS: ReadonlySet<string> = new Set([
  'rule',
  'severity',
  ...AGGREGATE_PLACEHOLDERS,
]);

/**
 * The fields a source's rules read that no document names (`FIELDS` lacks them): read as
 * text (`ParseOptions.undocumented`), and warned about by `configWarnings`.
 */
export function undocumentedFields(config: Config, source: SourceName): string[] {
  const catalogue = FIELDS[source];
  return [...usedFields(config, source)].filter((name) => catalogue[name] === undefined);
}
