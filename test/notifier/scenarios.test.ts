import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseConfig } from '../../shared/config/load';
import type { Message } from '../../shared/notifier/types';
import * as z from '../../shared/schema/zod';
import { formatApiDateTime } from '../../shared/time/zone';
import { replayMessages } from '../../shared/timeline/messages';
import { readTimeline } from '../../shared/timeline/parse';

/**
 * Notifier scenarios, as data: each `scenarios/*.yaml` holds rules and channels (on top of
 * `BASE`), a timeline of poll results, and the exact messages expected from
 * `replay --messages`: when (wall clock in the config zone), to which channel, what kind, and
 * each alert as `key status` (`, fired HH:MM:SS` when a firing and its resolution are told
 * once). `sms` and `subject`, when given, must match exactly (`sms: null`: email only). A
 * timeline may carry people's actions (`silence`, `ack`); `muted`, when given, lists the
 * events recorded instead of sent, in order.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

const BASE = {
  api: { baseUrl: 'https://api.example.com', tokenParameter: '/telealert/api-token' },
  sources: { live_calls: { every: '1m' }, payments: { every: '5m', lookback: '24h' } },
};

const Expected = z.strictObject({
  at: z.string(),
  channel: z.string(),
  kind: z.enum(['alerts', 'digest', 'escalation', 'ack']),
  alerts: z.array(z.string()),
  sms: z.optional(z.nullable(z.string())),
  subject: z.optional(z.string()),
});

const Scenario = z.strictObject({
  description: z.string(),
  config: z.record(z.string(), z.unknown()),
  timeline: z.array(z.record(z.string(), z.unknown())),
  expect: z.array(Expected),
  /** Events recorded instead of sent, as `key reason by` (`by`: a silence's comment, or who acknowledged). */
  muted: z.optional(z.array(z.string())),
});

function load(file: string) {
  const scenario = Scenario.parse(parseYaml(readFileSync(join(DIR, file), 'utf8')));
  const config = parseConfig(stringifyYaml({ ...BASE, ...scenario.config }), `${file}#config`);
  const text = scenario.timeline.map((line) => JSON.stringify(line)).join('\n');
  return { scenario, config, ...readTimeline(text, file, config.timezone) };
}

function shown(message: Message, zone: string, expected: z.infer<typeof Expected> | undefined) {
  const clock = (iso: string) => formatApiDateTime(Date.parse(iso), zone);
  return {
    at: clock(message.at),
    channel: message.channel,
    kind: message.kind,
    alerts: message.alerts.map(
      (alert) =>
        `${alert.key} ${alert.status}${alert.firedAt ? `, fired ${clock(alert.firedAt).slice(11)}` : ''}`,
    ),
    ...(expected?.sms === undefined ? {} : { sms: message.sms }),
    ...(expected?.subject === undefined ? {} : { subject: message.subject }),
  };
}

const files = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

describe('Scenarios: messages from recorded timelines', () => {
  it('finds the scenario files', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s', (file) => {
    const { scenario, config, entries, actions } = load(file);
    const { messages, muted, notifier } = replayMessages(config, entries, actions);
    expect(
      messages.map((message, index) => shown(message, config.timezone, scenario.expect[index])),
      scenario.description,
    ).toEqual(scenario.expect);
    if (scenario.muted !== undefined) {
      const comments = new Map((notifier?.silences ?? []).map((s) => [s.id, s.comment]));
      expect(
        muted.map((item) => `${item.key} ${item.reason} ${comments.get(item.by) ?? item.by}`),
      ).toEqual(scenario.muted);
    }
  });
});
