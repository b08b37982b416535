import { kindOfNumber, readInternationalNumber, takesSms } from '../phone/numbers';
import { isWrittenPhone } from '../records/phone';
import * as z from '../schema/zod';
import { tryParseDuration } from '../time/duration';
import { LIVE_CALL_QUERY_KEYS, SEVERITIES, SOURCES, WEEKDAYS } from '../types/config';
import { slackSchema, teamsSchema } from './chat';

/**
 * Structural schemas of the rules file (zod/mini, strict objects). Cross-references (channels a
 * rule names, fields of a source, summary placeholders) are checked in `rules.ts`, so that a
 * problem in one place never hides a problem in another.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A value or the reason it is refused; lets one schema own its user-facing message. */
export type Read<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

export function custom<T>(read: (input: unknown) => Read<T>) {
  return z.pipe(
    z.optional(z.unknown()),
    z.transform((input, ctx): T => {
      const result = read(input);
      if (result.ok) return result.value;
      ctx.issues.push({ code: 'custom', message: result.message, input });
      return z.NEVER;
    }),
  );
}

export interface DurationBounds {
  readonly minMs: number;
  readonly maxMs: number;
  /** Used when the key is absent; absent and no default means required. */
  readonly defaultMs?: number;
  /** EventBridge schedules run in whole minutes. */
  readonly wholeMinutes?: boolean;
  /** Why the minimum, told to the user. */
  readonly minReason?: string;
}

/** Reads a rules-file duration (`90s`, `15m`, `2h`, `1d`, `HH:MM:SS`; a bare `0`) as ms. */
export function readDuration(input: unknown, bounds: DurationBounds): Read<number> {
  if (input === undefined) {
    return bounds.defaultMs === undefined
      ? { ok: false, message: 'is required' }
      : { ok: true, value: bounds.defaultMs };
  }
  let ms: number | undefined;
  if (input === 0) ms = 0;
  else if (typeof input === 'number') {
    return { ok: false, message: `${input} has no unit: write ${input}s, ${input}m or ${input}h` };
  } else if (typeof input === 'string') ms = tryParseDuration(input);
  else return { ok: false, message: 'must be a duration: 90s, 15m, 2h, 1d or HH:MM:SS' };
  if (ms === undefined) {
    return {
      ok: false,
      message: `"${input}" is not a duration: write 90s, 15m, 2h, 1d or HH:MM:SS`,
    };
  }
  if (ms < bounds.minMs) {
    const reason = bounds.minReason ? ` (${bounds.minReason})` : '';
    return { ok: false, message: `must be at least ${formatBound(bounds.minMs)}${reason}` };
  }
  if (ms > bounds.maxMs)
    return { ok: false, message: `must be at most ${formatBound(bounds.maxMs)}` };
  if (bounds.wholeMinutes && ms % MINUTE !== 0) {
    return {
      ok: false,
      message: 'must be whole minutes (EventBridge schedules run by the minute)',
    };
  }
  return { ok: true, value: ms };
}

function formatBound(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE}m`;
  return `${ms / 1000}s`;
}

export const duration = (bounds: DurationBounds) => custom((input) => readDuration(input, bounds));

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** https, or http for loopback hosts (the simulator); no query, no fragment, no trailing `/`. */
export function readBaseUrl(input: unknown): Read<string> {
  if (input === undefined) return { ok: false, message: 'is required' };
  if (typeof input !== 'string')
    return { ok: false, message: 'must be a URL like https://api.example.com' };
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, message: `"${input}" is not a URL; write https://api.example.com` };
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    return {
      ok: false,
      message: 'must use https (http is allowed only for localhost and 127.0.0.1)',
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, message: 'must be an https URL' };
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must not carry a query, fragment or credentials' };
  }
  return { ok: true, value: url.href.replace(/\/+$/, '') };
}

/** An IANA zone, as far as this runtime's Intl knows it. */
export function readTimeZone(input: unknown): Read<string> {
  if (input === undefined) return { ok: true, value: 'Asia/Kolkata' };
  if (typeof input !== 'string' || input.trim() === '') {
    return { ok: false, message: 'must be an IANA time zone such as Asia/Kolkata' };
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: input.trim() });
    return { ok: true, value: input.trim() };
  } catch {
    return {
      ok: false,
      message: `"${input}" is not an IANA time zone (for example Asia/Kolkata or Europe/London)`,
    };
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A list of `read` items (or one item alone). Every bad item is its own issue at its own path
 * (`sms[1]`, counting from 0 like `rules[0]`), so one run of `validate` shows them all.
 */
function list<T>(read: (item: unknown) => Read<T>, what: string) {
  return z.pipe(
    z.optional(z.unknown()),
    z.transform((input, ctx): readonly T[] => {
      if (input === undefined) return [];
      const items = Array.isArray(input) ? input : [input];
      const values: T[] = [];
      const firstAt = new Map<T, number>();
      let failed = false;
      for (const [index, item] of items.entries()) {
        const path = Array.isArray(input) ? [index] : [];
        const result = read(item);
        if (!result.ok) {
          failed = true;
          ctx.issues.push({ code: 'custom', message: result.message, input: item, path });
          continue;
        }
        const first = firstAt.get(result.value);
        if (first !== undefined) {
          failed = true;
          const message = `lists the ${what} ${JSON.stringify(result.value)} twice (also [${first}])`;
          ctx.issues.push({ code: 'custom', message, input: item, path });
          continue;
        }
        firstAt.set(result.value, index);
        values.push(result.value);
      }
      return failed ? z.NEVER : values;
    }),
  );
}

/**
 * A phone number of the rules file: international (`+` and the country code), valid in its
 * country's numbering plan (libphonenumber-js), kept as E.164. `sms`: a line that takes SMS.
 */
export function readPhone(input: unknown, use: 'sms' | 'call'): Read<string> {
  if (typeof input === 'number') {
    return {
      ok: false,
      message: `quote the number ("+${input}"): unquoted, YAML reads it as a number and drops the +`,
    };
  }
  if (typeof input !== 'string') {
    return { ok: false, message: `${JSON.stringify(input)} is not a phone number` };
  }
  const read = readInternationalNumber(input);
  if (!read.ok) return read;
  if (use === 'sms' && !takesSms(read)) {
    return {
      ok: false,
      message: `${JSON.stringify(input)} is ${kindOfNumber(read.type)} of ${read.where}: it cannot take SMS; give a mobile number`,
    };
  }
  return { ok: true, value: read.e164 };
}

export function readEmail(input: unknown): Read<string> {
  if (typeof input === 'string' && EMAIL.test(input.trim()))
    return { ok: true, value: input.trim() };
  return { ok: false, message: `${JSON.stringify(input)} is not an email address` };
}

export const CHANNEL_NAME = /^[a-z0-9-]{1,64}$/;
export const RULE_NAME = /^[a-z0-9-]{1,64}$/;

export const topLevelSchema = z.strictObject({
  timezone: z.optional(z.unknown()),
  api: z.optional(z.unknown()),
  sources: z.optional(z.unknown()),
  health: z.optional(z.unknown()),
  channels: z.optional(z.unknown()),
  rules: z.optional(z.unknown()),
  ack: z.optional(z.unknown()),
  sms: z.optional(z.unknown()),
  people: z.optional(z.unknown()),
  rotations: z.optional(z.unknown()),
});

export const apiSchema = z.strictObject({
  baseUrl: custom(readBaseUrl),
  tokenParameter: z.string().check(
    z.regex(/^(\/[A-Za-z0-9_.-]+)+$|^[A-Za-z0-9_.-]+$/, {
      error: 'must be an SSM parameter name such as /telealert/api-token',
    }),
    z.maxLength(2048),
  ),
  timeout: duration({ minMs: 1000, maxMs: 60_000, defaultMs: 10_000 }),
});

const queryValue = z.optional(z.pipe(z.union([z.string(), z.number()]), z.transform(String)));
/** A number filter (`agent_number`, `did_number`): `+91 abc` is refused, not sent as it is. */
const phoneQueryValue = z.optional(
  z.pipe(
    z.union([z.string(), z.number()]),
    z.transform((input, ctx): string => {
      const text = String(input);
      if (isWrittenPhone(text)) return text;
      ctx.issues.push({ code: 'custom', message: `"${text}" is not a phone number`, input });
      return z.NEVER;
    }),
  ),
);
const PHONE_QUERY_KEYS: readonly string[] = ['agent_number', 'did_number'];

export const liveCallsSchema = z.strictObject({
  every: duration({
    minMs: MINUTE,
    maxMs: DAY,
    defaultMs: MINUTE,
    wholeMinutes: true,
    minReason: "EventBridge's floor",
  }),
  samples: z._default(z.number().check(z.int(), z.gte(1), z.lte(60)), 1),
  query: z._default(
    z.strictObject(
      Object.fromEntries(
        LIVE_CALL_QUERY_KEYS.map((key) => [
          key,
          PHONE_QUERY_KEYS.includes(key) ? phoneQueryValue : queryValue,
        ]),
      ) as Record<(typeof LIVE_CALL_QUERY_KEYS)[number], typeof queryValue>,
    ),
    {},
  ),
});

export const paymentsSchema = z.strictObject({
  every: duration({
    minMs: MINUTE,
    maxMs: DAY,
    defaultMs: 5 * MINUTE,
    wholeMinutes: true,
    minReason: "EventBridge's floor",
  }),
  lookback: duration({ minMs: MINUTE, maxMs: 31 * DAY, defaultMs: DAY }),
});

export const sourcesSchema = z.strictObject({
  live_calls: z.optional(z.unknown()),
  payments: z.optional(z.unknown()),
});

export const healthSchema = z.strictObject({
  after: z._default(z.number().check(z.int(), z.gte(1), z.lte(100)), 3),
  notify: z.optional(z.array(z.string()).check(z.minLength(1))),
});

/** `HH:MM` as minutes after midnight; `24:00` only where `endOfDay` allows it. */
export function readTimeOfDay(input: unknown, endOfDay: boolean): Read<number> {
  if (input === undefined) return { ok: false, message: 'is required' };
  const match = typeof input === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(input.trim()) : null;
  const hours = Number(match?.[1]);
  const minutes = Number(match?.[2]);
  const total = hours * 60 + minutes;
  if (!match || minutes > 59 || total > (endOfDay ? 1440 : 1439)) {
    return {
      ok: false,
      message: `${JSON.stringify(input)} is not a time of day: write "09:00"${endOfDay ? ' (or "24:00")' : ''}`,
    };
  }
  return { ok: true, value: total };
}

export const groupSchema = z.strictObject({
  by: z._default(z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), ['rule']),
  wait: duration({ minMs: 0, maxMs: 3_600_000, defaultMs: 0 }),
  interval: duration({ minMs: 0, maxMs: DAY, defaultMs: 5 * MINUTE }),
});

export const activeSchema = z.strictObject({
  days: z._default(z.array(z.enum(WEEKDAYS)).check(z.minLength(1)), [...WEEKDAYS]),
  from: custom((input) => readTimeOfDay(input, false)),
  to: custom((input) => readTimeOfDay(input, true)),
});

export const channelSchema = z.strictObject({
  sms: list((input) => readPhone(input, 'sms'), 'number'),
  email: list(readEmail, 'address'),
  minSeverity: z.optional(z.enum(SEVERITIES)),
  group: z.optional(groupSchema),
  smsPerHour: z._default(z.number().check(z.int(), z.gte(1), z.lte(10_000)), 20),
  active: z.optional(activeSchema),
  slack: z.optional(slackSchema),
  teams: z.optional(teamsSchema),
  rotation: z.optional(z.string().check(z.minLength(1))),
});

export const ruleSchema = z.strictObject({
  name: z.string().check(
    z.regex(RULE_NAME, {
      error: 'must be 1 to 64 of a-z, 0-9 and - (it names metrics and alert keys)',
    }),
  ),
  source: z.enum(SOURCES),
  where: z._default(z.record(z.string(), z.unknown()), {}),
  count: z.optional(z.unknown()),
  groupBy: z.optional(z.array(z.string()).check(z.minLength(1))),
  for: duration({ minMs: 0, maxMs: 7 * DAY, defaultMs: 0 }),
  keepFiring: duration({ minMs: 0, maxMs: 7 * DAY, defaultMs: 0 }),
  repeat: custom<number | undefined>((input) =>
    input === undefined
      ? { ok: true, value: undefined }
      : readDuration(input, { minMs: MINUTE, maxMs: 7 * DAY }),
  ),
  resolved: z._default(z.boolean(), true),
  severity: z._default(z.enum(SEVERITIES), 'warning'),
  notify: z.array(z.string()).check(z.minLength(1)),
  summary: z.optional(
    z.string().check(z.maxLength(200), z.regex(/^[^\r\n]*$/, { error: 'must be one line' })),
  ),
  escalate: z.optional(
    z
      .array(
        z.strictObject({
          after: custom((input) =>
            input === undefined
              ? { ok: false, message: 'is required (how long after firing, e.g. 10m)' }
              : readDuration(input, { minMs: MINUTE, maxMs: 7 * DAY }),
          ),
          notify: z.array(z.string()).check(z.minLength(1)),
        }),
      )
      .check(z.minLength(1)),
  ),
});

export const ackSchema = z.strictObject({
  did: custom((input) => readPhone(input, 'call')),
  timeout: duration({ minMs: MINUTE, maxMs: DAY, defaultMs: 30 * MINUTE }),
});
