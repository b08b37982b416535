import { formatDuration } from '../time/duration';
import { formatInZone } from '../time/zone';
import { onOneLine, shownValue } from './display';
import { healthChecks, healthLines } from './health';
import { isLimitAlert, limitChecks, limitLines } from './limit';
import { isRetiredRule, retiredChecks, retiredLines } from './retired';
import type { MessageInput } from './types';
import { conditionWords, RECORD_NOUN, thresholdText } from './words';

/** What a person should look at first, per source (and for an unreachable API). */
function whatToCheck(input: MessageInput): string[] {
  if (isLimitAlert(input)) return limitChecks(input);
  if (isRetiredRule(input)) return retiredChecks();
  if (input.rule === undefined) return healthChecks(input);
  if (input.source === 'live_calls') {
    return [
      "Open the live calls view in the provider's panel: are agents logged in, free, and answering?",
      'Check the routing of the DID (queue, ring group, business hours) and whether a campaign or an outage is driving the volume.',
    ];
  }
  return [
    "Look the payment up in the provider's billing panel and in the gateway's dashboard (Razorpay, Instamojo).",
    'A payment pending for long usually means the gateway callback never arrived; a large or unusual one is worth a finance check.',
  ];
}

function rows(pairs: readonly (readonly [string, string])[]): string[] {
  // A reduce, not Math.max(...): a record may carry more fields than a call takes arguments.
  const width = pairs.reduce((widest, [label]) => Math.max(widest, label.length), 0) + 2;
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);
}

function ruleLines(input: MessageInput): (readonly [string, string])[] {
  const rule = input.rule;
  if (isLimitAlert(input)) return limitLines(input);
  if (isRetiredRule(input)) return retiredLines(input);
  if (rule === undefined) return healthLines(input, input.config.health.after);
  const noun = RECORD_NOUN[rule.source];
  const matched = Object.entries(rule.where).map(([field, c]) => conditionWords(field, c));
  const lines: (readonly [string, string])[] = [
    [
      'Rule',
      `${rule.name}, on ${rule.source} (${rule.count ? 'aggregate' : `per record: one alert per ${noun.slice(0, -1)}`})`,
    ],
    ['Matched', matched.length > 0 ? matched.join(' and ') : `every ${noun.slice(0, -1)}`],
  ];
  if (rule.count) {
    const group = rule.groupBy.length > 0 ? `, per ${rule.groupBy.join(' and ')}` : '';
    lines.push([
      'Counted',
      `the number of matching ${noun} ${conditionWords('', rule.count).trim()}${group}`,
    ]);
    lines.push([
      'Value',
      `${input.value ?? input.context.count ?? '?'} (threshold ${thresholdText(rule.count)})`,
    ]);
  }
  if (rule.forMs > 0) lines.push(['For', `held ${formatDuration(rule.forMs)} before firing`]);
  return lines;
}

/**
 * The email body: headline, summary, the rule in words, value against threshold, labels,
 * times in the configured zone, the record's details, and what to check.
 */
export function renderText(
  input: MessageInput,
  headline: string,
  summary: string | undefined,
): string {
  const zone = input.config.timezone;
  const at = (ms: number) => formatInZone(ms, zone);
  const status = input.status === 'firing' ? 'FIRING' : 'RESOLVED';
  const out: string[] = [`${status}: ${input.ruleName} (${input.severity})`, headline];
  if (summary) out.push(summary);
  out.push('');
  // Labels and the key carry API values: each shown on its line, never adding lines of its own.
  const labels = Object.entries(input.labels)
    .map(([k, v]) => `${k}=${v === '' ? '""' : shownValue(v)}`)
    .join(', ');
  const times: (readonly [string, string])[] = [['Active since', at(input.activeAtMs)]];
  if (input.firedAtMs !== undefined) times.push(['Firing since', at(input.firedAtMs)]);
  if (input.status === 'resolved') {
    const since = input.firedAtMs ?? input.activeAtMs;
    times.push(['Resolved at', `${at(input.atMs)} (after ${formatDuration(input.atMs - since)})`]);
  } else times.push(['Evaluated at', at(input.atMs)]);
  out.push(
    ...rows([
      ['Status', input.status],
      ['Severity', input.severity],
      ...ruleLines(input),
      ['Labels', labels || '(none)'],
      ...times,
    ]),
  );
  const details = Object.entries(input.context);
  if (details.length > 0) {
    out.push('', input.rule?.count === undefined && input.rule ? 'Record:' : 'Details:');
    const shown = details.map(([field, value]) => [field, shownValue(value)] as const);
    for (const line of rows(shown)) out.push(`  ${line}`);
  }
  out.push('', 'What to check:', ...whatToCheck(input).map((line) => `  - ${line}`));
  out.push('', `Alert key: ${onOneLine(input.key)}`, `Times are in ${zone}.`);
  return out.join('\n');
}
