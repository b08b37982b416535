import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseConfig } from '../../shared/config/load';
import * as z from '../../shared/schema/zod';
import { readTimeline } from '../../shared/timeline/parse';

/**
 * Notifier scenarios, as data: each `scenarios/*.yaml` holds rules and channels (on top of
 * `BASE`), a timeline of poll results, and the exact messages expected from
 * `replay --messages`: when (wall clock in the config zone), to which channel, what kind, and
 * each alert as `key status` (`, fired HH:MM:SS` when a firing and its resolution are told
 * once); `oncall` and `to` as the message carries them. `sms` and `subject`, when given, must
 * match exactly (`sms: null`: email only); `includes`, lines the message's text must contain. A timeline may carry people's actions (`silence`,
 * `ack`) and deploys of another rules file (`{at, config}`, on top of `BASE`); `muted`, when
 * given, lists the events recorded instead of sent, in order.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

const BASE = {
  api: { baseUrl: 'https://api.example.com', tokenParameter: '/telealert/api-token' },
  sources: { live_calls: { every: '1m' }, payments: { every: '5m', lookback: '24h' } },
};

export const Expected = z.strictObject({
  at: z.string(),
  channel: z.string(),
  kind: z.enum(['alerts', 'digest', 'escalation', 'ack', 'handoff']),
  /** A rotation's channel: the person the message reaches (absent: the message carries none). */
  oncall: z.optional(z.string()),
  /** An ack confirmation: the caller its SMS goes to alone (absent: the message carries none). */
  to: z.optional(z.string()),
  alerts: z.array(z.string()),
  sms: z.optional(z.nullable(z.string())),
  subject: z.optional(z.string()),
  /** Lines the message's text must contain (what an alert line says: its time, its value). */
  includes: z.optional(z.array(z.string())),
});

const Scenario = z.strictObject({
  description: z.string(),
  config: z.record(z.string(), z.unknown()),
  timeline: z.array(z.record(z.string(), z.unknown())),
  expect: z.array(Expected),
  /** Events recorded instead of sent, as `key reason by` (`by`: a silence's comment, or who acknowledged). */
  muted: z.optional(z.array(z.string())),
});

/** The scenario files, sorted. */
export const SCENARIO_FILES = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

/** One scenario: what it expects, its validated config, its polls and its people's actions. */
export function loadScenario(file: string) {
  const scenario = Scenario.parse(parseYaml(readFileSync(join(DIR, file), 'utf8')));
  const config = parseConfig(stringifyYaml({ ...BASE, ...scenario.config }), `${file}#config`);
  // A deploy of another rules file mid-way (`{at, config}`): on top of `BASE` too.
  const text = scenario.timeline
    .map((line) =>
      JSON.stringify(
        typeof line.config === 'object' && line.config !== null
          ? { ...line, config: { ...BASE, ...line.config } }
          : line,
      ),
    )
    .join('\n');
  return { scenario, config, ...readTimeline(text, file, config.timezone) };
}
