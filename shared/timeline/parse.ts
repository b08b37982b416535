import { ConfigError } from '../config/errors';
import { validateConfig } from '../config/validate';
import { SilenceError } from '../notifier/errors';
import type { PersonAction } from '../notifier/people';
import { makeSilence } from '../notifier/silence';
import { OverrideError } from '../oncall/errors';
import { makeOverride } from '../oncall/overrides';
import { parseJsonExact } from '../records/exact-json';
import { readBatch } from '../records/parse';
import type { PollFailure, PollResult } from '../records/types';
import * as z from '../schema/zod';
import { tryParseDuration } from '../time/duration';
import { parseApiTimestamp, parseOffsetTimestamp } from '../time/zone';
import { type Config, SOURCES, type SourceName } from '../types/config';
import { TimelineError, type TimelineIssue } from './errors';
import { type NotifierOutage, readOutageLine } from './outage';

export { replayTimeline } from './replay';

/** One recorded poll of a timeline. */
export interface TimelineEntry {
  readonly atMs: number;
  readonly source: SourceName;
  readonly poll: PollResult;
}

/**
 * A person's action between polls (contract section 6): a silence added or an alert
 * acknowledged at `atMs`. Only the notifier sees them (`replay --messages`).
 */
export interface TimelineAction {
  readonly atMs: number;
  readonly action: PersonAction;
}

/**
 * A deploy of another rules file at `atMs` (contract 6.1 rule 8): from then on the pollers
 * and the notifier run under `config`.
 */
export interface ConfigChange {
  readonly atMs: number;
  readonly config: Config;
}

/**
 * A timeline read whole: its polls, its people's actions, its deploys and the notifier's
 * outages, each in time order.
 */
export interface Timeline {
  readonly entries: readonly TimelineEntry[];
  readonly actions: readonly TimelineAction[];
  readonly changes: readonly ConfigChange[];
  readonly outages: readonly NotifierOutage[];
}

const FAILURE_KINDS = ['auth', 'http', 'network', 'timeout', 'body', 'rate-limited'] as const;

const LineSchema = z
  .strictObject({
    at: z.string(),
    source: z.enum(SOURCES),
    records: z.optional(z.array(z.unknown())),
    error: z.optional(
      z.strictObject({
        status: z.optional(z.number().check(z.int(), z.gte(100), z.lte(599))),
        kind: z.optional(z.enum(FAILURE_KINDS)),
        message: z.optional(z.string()),
      }),
    ),
  })
  .check(
    z.refine((line) => (line.records === undefined) !== (line.error === undefined), {
      error: 'a line needs exactly one of "records" (a successful poll) or "error" (a failed one)',
    }),
  );

const matcherValue = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

const SilenceLineSchema = z.strictObject({
  at: z.string(),
  silence: z
    .strictObject({
      matchers: z.record(z.string(), matcherValue),
      for: z.optional(z.string()),
      until: z.optional(z.string()),
      comment: z.string(),
      by: z._default(z.string(), 'replay'),
    })
    .check(
      z.refine((silence) => (silence.for === undefined) !== (silence.until === undefined), {
        error: 'a silence needs exactly one of "for" (a duration) or "until" (a time)',
      }),
    ),
});

const AckLineSchema = z.strictObject({
  at: z.string(),
  ack: z
    .strictObject({
      key: z.optional(z.string()),
      rule: z.optional(z.string()),
      by: z._default(z.string(), 'replay'),
    })
    .check(
      z.refine((ack) => (ack.key === undefined) !== (ack.rule === undefined), {
        error: 'an ack needs exactly one of "key" or "rule"',
      }),
    ),
});

const OverrideLineSchema = z.strictObject({
  at: z.string(),
  override: z.strictObject({
    rotation: z.string().check(z.minLength(1)),
    who: z.string().check(z.minLength(1)),
    from: z.string(),
    until: z.string(),
    by: z._default(z.string(), 'replay'),
  }),
});

/** An override line (contract section 8): added at `at`, for `from`..`until`. */
function readOverrideLine(
  json: Record<string, unknown>,
  atMs: number,
  zone: string,
): { action: PersonAction } | { message: string } {
  const parsed = OverrideLineSchema.safeParse(json);
  if (!parsed.success) return { message: parsed.error.issues.map(describe).join('; ') };
  const { rotation, who, by } = parsed.data.override;
  const from = readAt(parsed.data.override.from, zone);
  const until = readAt(parsed.data.override.until, zone);
  if (from === undefined)
    return { message: `override.from: "${parsed.data.override.from}" is not a time` };
  if (until === undefined) {
    return { message: `override.until: "${parsed.data.override.until}" is not a time` };
  }
  try {
    const override = makeOverride({ rotation, who, from, until, createdBy: by, createdAt: atMs });
    return { action: { kind: 'override', override } };
  } catch (error) {
    if (error instanceof OverrideError) return { message: `override: ${error.message}` };
    throw error;
  }
}

/** An action line as the person who wrote it meant it; its time is read by the caller. */
function readActionLine(
  json: Record<string, unknown>,
  atMs: number,
  zone: string,
): { action: PersonAction } | { message: string } {
  if ('override' in json) return readOverrideLine(json, atMs, zone);
  if ('silence' in json) {
    const parsed = SilenceLineSchema.safeParse(json);
    if (!parsed.success) return { message: parsed.error.issues.map(describe).join('; ') };
    const { matchers, comment, by } = parsed.data.silence;
    const forText = parsed.data.silence.for;
    const untilText = parsed.data.silence.until;
    const endsAt =
      forText !== undefined
        ? atMs + (tryParseDuration(forText) ?? Number.NaN)
        : readAt(untilText ?? '', zone);
    if (endsAt === undefined || !Number.isFinite(endsAt)) {
      return {
        message:
          forText !== undefined
            ? `silence.for: "${forText}" is not a duration (90s, 15m, 2h)`
            : `silence.until: "${untilText}" is not an ISO-8601 time`,
      };
    }
    try {
      const silence = makeSilence({ matchers, startsAt: atMs, endsAt, comment, createdBy: by });
      return { action: { kind: 'silence', silence } };
    } catch (error) {
      if (error instanceof SilenceError) return { message: `silence: ${error.message}` };
      throw error;
    }
  }
  const parsed = AckLineSchema.safeParse(json);
  if (!parsed.success) return { message: parsed.error.issues.map(describe).join('; ') };
  const { key, rule, by } = parsed.data.ack;
  return {
    action: {
      kind: 'ack',
      ...(key === undefined ? {} : { key }),
      ...(rule === undefined ? {} : { rule }),
      by,
    },
  };
}

const ConfigLineSchema = z.strictObject({
  at: z.string(),
  config: z.record(z.string(), z.unknown()),
});

/** A deploy line: a whole rules file, validated as `telealert validate` does. */
function readConfigLine(
  json: Record<string, unknown>,
  name: string,
): { config: Config } | { message: string } {
  const parsed = ConfigLineSchema.safeParse(json);
  if (!parsed.success) return { message: parsed.error.issues.map(describe).join('; ') };
  try {
    return { config: validateConfig(parsed.data.config, name) };
  } catch (error) {
    if (error instanceof ConfigError) {
      return {
        message: error.issues
          .map((issue) => `config${issue.path === '' ? '' : `.${issue.path}`}: ${issue.message}`)
          .join('; '),
      };
    }
    throw error;
  }
}

const OFFSET = /(?:[zZ]|[+-]\d{2}:?\d{2})$/;
const BOM = 0xfeff;

/** `at` with an offset is an instant; without one it is wall-clock time in the zone. */
function readAt(text: string, zone: string): number | undefined {
  const ms = OFFSET.test(text.trim()) ? parseOffsetTimestamp(text) : parseApiTimestamp(text, zone);
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
}

/** A recorded failure as the client would have reported it; kind guessed from the status. */
function readFailure(error: { status?: number; kind?: PollFailure['kind']; message?: string }) {
  const { status } = error;
  const kind =
    error.kind ??
    (status === undefined
      ? 'network'
      : status === 401 || status === 403
        ? 'auth'
        : status === 429
          ? 'rate-limited'
          : 'http');
  const message = error.message ?? (status === undefined ? `${kind} failure` : `HTTP ${status}`);
  return { kind, ...(status === undefined ? {} : { status }), message } satisfies PollFailure;
}

function describe(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Reads a timeline (contract section 5): JSON Lines, one poll per line, in time order.
 * `at` is ISO-8601 with an offset, or offset-less wall-clock time read in `zone`; `records`
 * are raw API records, read by the same `readBatch` as the poller (with the fields no document
 * names that the rules read, `undocumentedFields`, per source); `error`
 * (`{status?, kind?, message?}`) records a failed poll. Blank lines are ignored.
 *
 * @throws TimelineError listing every bad line as `file:line: reason` (time going backwards
 *   included), not only the first.
 */
export function parseTimeline(
  text: string,
  fileName: string,
  zone: string,
  undocumented: Partial<Record<SourceName, readonly string[]>> = {},
): TimelineEntry[] {
  return readTimeline(text, fileName, zone, undocumented).entries as TimelineEntry[];
}

/**
 * Reads a timeline with people's actions between its polls (contract section 6):
 * `{"at":...,"silence":{"matchers":{...},"for":"2h"|"until":TIME,"comment":...,"by":...}}`
 * (the silence starts at `at`), `{"at":...,"ack":{"key"|"rule":...,"by":...}}` and
 * `{"at":...,"override":{"rotation":...,"who":...,"from":TIME,"until":TIME,"by":...}}`; and
 * deploys of another rules file, `{"at":...,"config":{...the whole rules file...}}` (contract
 * 6.1 rule 8: the pollers and the notifier run under it from `at`); and outages of the
 * notifier, `{"at":...,"notifier":{"down":"30m"}}` (`outage.ts`).
 *
 * @throws TimelineError as `parseTimeline`, action lines' mistakes included.
 */
export function readTimeline(
  text: string,
  fileName: string,
  zone: string,
  undocumented: Partial<Record<SourceName, readonly string[]>> = {},
): Timeline {
  const entries: TimelineEntry[] = [];
  const actions: TimelineAction[] = [];
  const changes: ConfigChange[] = [];
  const outages: NotifierOutage[] = [];
  const issues: TimelineIssue[] = [];
  let lastAt = Number.NEGATIVE_INFINITY;
  // A byte-order mark (some editors write one) is not part of the first line.
  const lines = (text.charCodeAt(0) === BOM ? text.slice(1) : text).split(/\r?\n/);
  lines.forEach((content, index) => {
    const line = index + 1;
    if (content.trim() === '') return;
    let json: unknown;
    try {
      // Read as the poller reads an answer: a long money literal keeps its exact text.
      json = parseJsonExact(content);
    } catch (error) {
      issues.push({ line, message: `not JSON (${(error as Error).message})` });
      return;
    }
    if (
      typeof json === 'object' &&
      json !== null &&
      !Array.isArray(json) &&
      ('silence' in json ||
        'ack' in json ||
        'override' in json ||
        'config' in json ||
        'notifier' in json)
    ) {
      const record = json as Record<string, unknown>;
      const atMs = typeof record.at === 'string' ? readAt(record.at, zone) : undefined;
      if (atMs === undefined) {
        issues.push({ line, message: `at: ${JSON.stringify(record.at)} is not an ISO-8601 time` });
        return;
      }
      if (atMs < lastAt) {
        issues.push({ line, message: 'at: earlier than the line before; keep time order' });
        return;
      }
      if ('config' in record) {
        const deployed = readConfigLine(record, `${fileName}:${line}`);
        if ('message' in deployed) {
          issues.push({ line, message: deployed.message });
          return;
        }
        lastAt = atMs;
        changes.push({ atMs, config: deployed.config });
        return;
      }
      if ('notifier' in record) {
        const down = readOutageLine(record, atMs);
        if ('message' in down) {
          issues.push({ line, message: down.message });
          return;
        }
        lastAt = atMs;
        outages.push(down.outage);
        return;
      }
      const read = readActionLine(record, atMs, zone);
      if ('message' in read) {
        issues.push({ line, message: read.message });
        return;
      }
      lastAt = atMs;
      actions.push({ atMs, action: read.action });
      return;
    }
    const parsed = LineSchema.safeParse(json);
    if (!parsed.success) {
      issues.push({ line, message: parsed.error.issues.map(describe).join('; ') });
      return;
    }
    const { at, source, records, error } = parsed.data;
    const atMs = readAt(at, zone);
    if (atMs === undefined) {
      issues.push({ line, message: `at: "${at}" is not an ISO-8601 time` });
      return;
    }
    if (atMs < lastAt) {
      issues.push({ line, message: `at: ${at} is earlier than the line before; keep time order` });
      return;
    }
    lastAt = atMs;
    if (error !== undefined) {
      entries.push({ atMs, source, poll: { ok: false, error: readFailure(error) } });
      return;
    }
    const extras = undocumented[source];
    const batch = readBatch(source, records, zone, extras ? { undocumented: extras } : {});
    entries.push({
      atMs,
      source,
      poll: { ok: true, records: batch.records, skipped: batch.skipped },
    });
  });
  if (issues.length > 0) throw new TimelineError(fileName, issues);
  return { entries, actions, changes, outages };
}
