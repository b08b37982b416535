import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { canonicalPhone } from '../records/phone';
import type * as z from '../schema/zod';
import {
  type AckConfig,
  type ChannelConfig,
  type Config,
  LIVE_CALL_QUERY_KEYS,
  type LiveCallsSource,
  type RuleConfig,
} from '../types/config';
import { ConfigError, type ConfigIssue, ConfigReadError } from './errors';
import { deepFreeze } from './freeze';
import { didYouMean } from './hints';
import { check, checkSection } from './issues';
import { checkChannelRotations, readPeople, readRotations } from './people';
import { unreachablePaymentsRule } from './reach';
import { checkRule } from './rules';
import {
  ackSchema,
  apiSchema,
  CHANNEL_NAME,
  channelSchema,
  healthSchema,
  liveCallsSchema,
  paymentsSchema,
  readTimeZone,
  ruleSchema,
  sourcesSchema,
  topLevelSchema,
} from './schema';
import { readSms } from './sms';

/*
 * The rules file's checks on plain data, without the YAML parser: the Lambda bundles read the
 * rules as JSON (converted at synth) and validate them here with the same schemas, so `yaml`
 * stays out of the bundle (load.ts adds YAML on top for the CLI and synth).
 */

function isRecord(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

/** Returns the value of a section check, pushing its issues. */
function take<T>(
  issues: ConfigIssue[],
  result: { value?: T; issues: ConfigIssue[] },
): T | undefined {
  // One at a time: a rules file with a huge list can have more issues than push() takes.
  for (const issue of result.issues) issues.push(issue);
  return result.value;
}

/** A channel with its notifier defaults filled (contract section 6). */
function channelConfig(
  name: string,
  read: z.infer<typeof channelSchema>,
  path: string,
  issues: ConfigIssue[],
): ChannelConfig {
  const { group, active, ...rest } = read;
  if (active !== undefined && active.from === active.to) {
    issues.push({
      path: `${path}.active.to`,
      message: 'must differ from from (leave active out for a channel that is always active)',
    });
  }
  return {
    name,
    ...rest,
    group: {
      by: group?.by ?? ['rule'],
      waitMs: group?.wait ?? 0,
      intervalMs: group?.interval ?? 300_000,
    },
    ...(active === undefined
      ? {}
      : { active: { days: active.days, fromMinutes: active.from, toMinutes: active.to } }),
  };
}

function readChannels(raw: unknown, issues: ConfigIssue[]): Record<string, ChannelConfig> {
  const channels: Record<string, ChannelConfig> = {};
  if (raw === undefined) {
    issues.push({ path: 'channels', message: 'is required: at least one channel to notify' });
    return channels;
  }
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    issues.push({
      path: 'channels',
      message: 'must be a mapping of channel name to its subscribers',
    });
    return channels;
  }
  for (const [name, body] of Object.entries(raw)) {
    const path = name.includes('.') ? `channels[${JSON.stringify(name)}]` : `channels.${name}`;
    if (!CHANNEL_NAME.test(name)) {
      issues.push({
        path,
        message: 'channel names are 1 to 64 of a-z, 0-9 and - (they name SNS topics)',
      });
    }
    const channel = take(issues, check(channelSchema, body ?? {}, ['channels', name]));
    if (channel) channels[name] = channelConfig(name, channel, path, issues);
  }
  return channels;
}

function readRules(
  raw: unknown,
  channelNames: ReadonlySet<string>,
  issues: ConfigIssue[],
  lookbackMs: number | undefined,
): RuleConfig[] {
  if (raw === undefined) {
    issues.push({ path: 'rules', message: 'is required (an empty list [] is allowed)' });
    return [];
  }
  if (!Array.isArray(raw)) {
    issues.push({ path: 'rules', message: 'must be a list of rules' });
    return [];
  }
  const rules: RuleConfig[] = [];
  const seen = new Map<string, number>();
  raw.forEach((body: unknown, index) => {
    if (!isRecord(body)) {
      issues.push({
        path: `rules[${index}]`,
        message: 'must be a mapping with name, source, notify',
      });
      return;
    }
    const shape = take(issues, check(ruleSchema, body, ['rules', index]));
    const checks = checkRule(body, index, channelNames);
    for (const issue of checks.issues) issues.push(issue);
    if (typeof body.name === 'string') {
      const first = seen.get(body.name);
      if (first !== undefined) {
        issues.push({
          path: `rules[${index}].name`,
          message: `"${body.name}" is already the name of rules[${first}]`,
        });
      } else seen.set(body.name, index);
    }
    if (!shape) return;
    const rule: RuleConfig = {
      name: shape.name,
      source: shape.source,
      where: checks.where,
      ...(checks.count ? { count: checks.count } : {}),
      groupBy: shape.groupBy ?? [],
      forMs: shape.for,
      keepFiringMs: shape.keepFiring,
      ...(shape.repeat !== undefined ? { repeatMs: shape.repeat } : {}),
      resolved: shape.resolved,
      severity: shape.severity,
      notify: shape.notify,
      ...(shape.summary !== undefined ? { summary: shape.summary } : {}),
      ...(shape.escalate !== undefined
        ? { escalate: shape.escalate.map((step) => ({ afterMs: step.after, notify: step.notify })) }
        : {}),
    };
    rules.push(rule);
    if (lookbackMs !== undefined) issues.push(...unreachablePaymentsRule(rule, index, lookbackMs));
  });
  return rules;
}

/**
 * `ack` (contract section 6): the number a call to acknowledges, kept canonical so a live
 * call's `did` (canonical too) compares by equality, and how long such an acknowledgement
 * holds. The live-calls poller is the one that sees such a call, and it runs only for a
 * live_calls rule, asking the API only for the calls `sources.live_calls.query` lets through.
 */
function readAck(
  raw: unknown,
  rules: readonly RuleConfig[],
  query: LiveCallsSource['query'] | undefined,
  issues: ConfigIssue[],
): AckConfig | undefined {
  if (raw === undefined) return undefined;
  const ack = take(issues, check(ackSchema, raw, ['ack']));
  if (ack === undefined) return undefined;
  if (!rules.some((rule) => rule.source === 'live_calls')) {
    issues.push({
      path: 'ack.did',
      message:
        'needs a live_calls rule: the live-calls poller sees the call, and it reads calls only for one',
    });
  }
  const did = canonicalPhone(ack.did);
  for (const hidden of ackCallHiddenBy(did, query ?? {})) issues.push(hidden);
  return { did, timeoutMs: ack.timeout };
}

/**
 * The query filters that would keep a call to `did` out of every live-calls answer (contract
 * 6.1 rule 7): a `did_number` other than it, and any `agent_number`, `extension` or `call_id`
 * (a call to the ack number is from a channel's phone, to no chosen agent or extension, with a
 * call_id unknown in advance). Without this check acknowledgement by call silently never works.
 */
function ackCallHiddenBy(did: string, query: LiveCallsSource['query']): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const key of LIVE_CALL_QUERY_KEYS) {
    const value = query[key];
    if (value === undefined) continue;
    if (key === 'did_number' && canonicalPhone(value) === did) continue;
    const why =
      key === 'did_number'
        ? `asks only for calls to ${value}`
        : `asks only for calls with ${key} ${value}`;
    issues.push({
      path: 'ack.did',
      message: `calls to ${did} are never seen: sources.live_calls.query.${key} ${why}; drop that filter or acknowledge with telealert ack`,
    });
  }
  return issues;
}

/**
 * Validates a rules file's data (contract section 1), as YAML or JSON parsing left it, and returns it typed, with defaults filled and
 * deep-frozen. Synchronous: `cdk synth` calls it.
 *
 * Bounds beyond the contract: `api.timeout` 1s..60s; `sources.*.every` whole minutes, 1m..1d;
 * `samples` 1..60 with at least 5s between samples, and when `samples > 1` `every` at most 10m
 * (all samples run inside one Lambda invocation, capped at 15 minutes); `lookback` at least
 * `every` (or payments between two runs would be missed) and at most 31d; `health.after`
 * 1..100; `for`/`keepFiring` up to 7d; `repeat` 1m..7d. A channel with neither `sms` nor
 * `email` is allowed: its topic serves programmatic subscribers. `rules: []` is allowed.
 *
 * @throws ConfigError listing every issue at once, as `file: path: reason` lines.
 */
export function validateConfig(raw: unknown, fileName: string): Config {
  if (!isRecord(raw)) {
    const message =
      raw === null || raw === undefined
        ? 'the file is empty; it needs at least api, channels and rules'
        : 'must be a mapping with api, channels and rules';
    throw new ConfigError(fileName, [{ path: '', message }]);
  }
  const issues: ConfigIssue[] = [];
  take(issues, check(topLevelSchema, raw, []));

  const zone = readTimeZone(raw.timezone);
  if (!zone.ok) issues.push({ path: 'timezone', message: zone.message });
  if (raw.api === undefined) {
    issues.push({ path: 'api', message: 'is required (baseUrl and tokenParameter)' });
  }
  const api = raw.api === undefined ? undefined : take(issues, check(apiSchema, raw.api, ['api']));
  // Each section is read even when its parent has an unknown key, so every issue shows at once.
  take(issues, check(sourcesSchema, raw.sources ?? {}, ['sources']));
  const sources = isRecord(raw.sources) ? raw.sources : {};
  const liveCalls = take(
    issues,
    checkSection(liveCallsSchema, sources.live_calls ?? {}, ['sources', 'live_calls']),
  );
  const payments = take(
    issues,
    checkSection(paymentsSchema, sources.payments ?? {}, ['sources', 'payments']),
  );
  if (liveCalls && liveCalls.samples > 1) {
    if (liveCalls.every / liveCalls.samples < 5000) {
      issues.push({
        path: 'sources.live_calls.samples',
        message: 'leaves less than 5s between samples',
      });
    }
    if (liveCalls.every > 600_000) {
      issues.push({
        path: 'sources.live_calls.every',
        message: 'must be at most 10m when samples > 1 (one run spans every sample)',
      });
    }
  }
  if (payments && payments.lookback < payments.every) {
    issues.push({
      path: 'sources.payments.lookback',
      message: 'must be at least every, or payments made between two runs are missed',
    });
  }

  const channels = readChannels(raw.channels, issues);
  const channelNames = new Set(isRecord(raw.channels) ? Object.keys(raw.channels) : []);
  const health = take(issues, check(healthSchema, raw.health ?? {}, ['health']));
  // Checked from the file itself, so a bad `after` does not hide an unknown channel.
  const notify = isRecord(raw.health) ? raw.health.notify : undefined;
  (Array.isArray(notify) ? notify : []).forEach((name: unknown, i) => {
    if (typeof name === 'string' && !channelNames.has(name)) {
      const hint = didYouMean(name, channelNames);
      issues.push({ path: `health.notify[${i}]`, message: `no channel named "${name}"${hint}` });
    }
  });
  const rules = readRules(raw.rules, channelNames, issues, payments?.lookback);
  const ack = readAck(raw.ack, rules, liveCalls?.query, issues);
  const sms = readSms(raw.sms, issues);
  const people = readPeople(raw.people, issues);
  const personNames = new Set(isRecord(raw.people) ? Object.keys(raw.people) : []);
  const rotations = readRotations(raw.rotations, personNames, issues);
  const rotationNames = new Set(isRecord(raw.rotations) ? Object.keys(raw.rotations) : []);
  checkChannelRotations(channels, rotationNames, issues);

  if (issues.length > 0 || !api || !liveCalls || !payments || !health || !zone.ok || !sms) {
    throw new ConfigError(fileName, issues);
  }
  return deepFreeze({
    timezone: zone.value,
    api: { baseUrl: api.baseUrl, tokenParameter: api.tokenParameter, timeoutMs: api.timeout },
    sources: {
      live_calls: { everyMs: liveCalls.every, samples: liveCalls.samples, query: liveCalls.query },
      payments: { everyMs: payments.every, lookbackMs: payments.lookback },
    },
    health: { after: health.after, notify: health.notify ?? Object.keys(channels) },
    channels,
    rules,
    ...(ack === undefined ? {} : { ack }),
    sms,
    ...(people === undefined ? {} : { people }),
    ...(rotations === undefined ? {} : { rotations }),
  });
}

/**
 * The text of a rules file.
 *
 * @throws ConfigReadError when the file cannot be read.
 */
export function readRulesText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? `${path} does not exist`
        : code === 'EISDIR'
          ? `${path} is a directory, not a rules file`
          : `${path}: ${String(code ?? error)}`;
    throw new ConfigReadError(basename(path), reason, { cause: error });
  }
}
