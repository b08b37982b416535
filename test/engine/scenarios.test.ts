import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseConfig } from '../../shared/config/load';
import type { Notification } from '../../shared/engine/types';
import * as z from '../../shared/schema/zod';
import { parseApiTimestamp } from '../../shared/time/zone';
import { parseTimeline, replayTimeline } from '../../shared/timeline/parse';

/**
 * promtool-style scenario tests: each `scenarios/*.yaml` holds a rules config (inline, or
 * `configFile` beside it), a timeline (inline lines, or `timelineFile`, JSON Lines beside it)
 * and the exact list of notifications expected. Inline configs get `BASE` for the keys they
 * leave out, so a scenario only writes what it is about.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');

const BASE = {
  api: { baseUrl: 'https://api.example.com', tokenParameter: '/telealert/api-token' },
  sources: { live_calls: { every: '1m' }, payments: { every: '5m', lookback: '24h' } },
  channels: {
    oncall: { email: ['oncall@example.com'] },
    finance: { email: ['finance@example.com'] },
  },
};

const Expected = z.strictObject({
  at: z.string(),
  rule: z.string(),
  status: z.enum(['firing', 'resolved']),
  key: z.string(),
  value: z.optional(z.number()),
  labels: z.optional(z.record(z.string(), z.string())),
  severity: z.optional(z.string()),
  channels: z.optional(z.array(z.string())),
});

const Scenario = z
  .strictObject({
    description: z.string(),
    config: z.optional(z.record(z.string(), z.unknown())),
    configFile: z.optional(z.string()),
    timeline: z.optional(z.array(z.record(z.string(), z.unknown()))),
    timelineFile: z.optional(z.string()),
    expect: z.array(Expected),
  })
  .check(
    z.refine(
      (s) => (s.config === undefined) !== (s.configFile === undefined),
      'config or configFile',
    ),
    z.refine(
      (s) => (s.timeline === undefined) !== (s.timelineFile === undefined),
      'timeline or timelineFile',
    ),
  );

type ExpectedNotification = z.infer<typeof Expected>;

function load(file: string) {
  const scenario = Scenario.parse(parseYaml(readFileSync(join(DIR, file), 'utf8')));
  const configText = scenario.configFile
    ? readFileSync(resolve(DIR, scenario.configFile), 'utf8')
    : stringifyYaml({ ...BASE, ...scenario.config });
  const config = parseConfig(configText, scenario.configFile ?? `${file}#config`);
  const timelineText = scenario.timelineFile
    ? readFileSync(resolve(DIR, scenario.timelineFile), 'utf8')
    : (scenario.timeline ?? []).map((line) => JSON.stringify(line)).join('\n');
  const entries = parseTimeline(timelineText, scenario.timelineFile ?? file, config.timezone);
  return { scenario, config, entries };
}

/** `at` as ISO UTC: written with an offset, or as wall-clock time in the config's zone. */
function isoAt(at: string, zone: string): string {
  const ms = /(?:Z|[+-]\d\d:?\d\d)$/.test(at) ? Date.parse(at) : parseApiTimestamp(at, zone);
  if (ms === undefined || !Number.isFinite(ms)) throw new Error(`unreadable at: ${at}`);
  return new Date(ms).toISOString();
}

/** The fields each expected entry names, from the actual notification. */
function pick(actual: Notification, expected: ExpectedNotification | undefined) {
  const picked: Record<string, unknown> = {
    at: actual.at,
    rule: actual.rule,
    status: actual.status,
    key: actual.key,
  };
  for (const field of ['value', 'labels', 'severity', 'channels'] as const) {
    if (expected?.[field] !== undefined) picked[field] = actual[field];
  }
  return picked;
}

const files = readdirSync(DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();

describe('Scenarios: rule engine over recorded timelines', () => {
  it('finds the scenario files', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
  });

  it.each(files)('%s', (file) => {
    const { scenario, config, entries } = load(file);
    const actual = replayTimeline(config, entries);
    const expected = scenario.expect.map((entry) => ({
      ...entry,
      at: isoAt(entry.at, config.timezone),
    }));
    expect(
      actual.map((notification, index) => pick(notification, expected[index])),
      scenario.description,
    ).toEqual(expected);
  });
});
