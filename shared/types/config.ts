/**
 * The validated, frozen rules file (contract section 1). Produced only by `loadConfig`/
 * `parseConfig` (`shared/config/`); everything else trusts these types. It imports nothing and
 * sits below every other folder of `shared/`: records, conditions and messages speak its
 * vocabulary, and `shared/config/` validates a rules file with them.
 */

export const SOURCES = ['live_calls', 'payments'] as const;
export type SourceName = (typeof SOURCES)[number];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** The API's own comparison operators. Longest first, so a prefix scan finds `>=` before `>`. */
export const OPERATORS = ['>=', '<=', '<>', '>', '<'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Query parameters `GET /v1/live_calls` accepts. */
export const LIVE_CALL_QUERY_KEYS = ['agent_number', 'extension', 'did_number', 'call_id'] as const;
export type LiveCallQueryKey = (typeof LIVE_CALL_QUERY_KEYS)[number];

/**
 * One `where`/`count` condition, as written. The value stays text here: its meaning (number,
 * duration, money, text, phone) comes from the field's kind in `records/fields.ts`, and
 * validation has already proved it readable as that kind.
 */
export type Condition =
  /** A scalar (equality) or a list (any of). */
  | { readonly kind: 'equals'; readonly values: readonly string[] }
  /** `"OP VALUE"`. */
  | { readonly kind: 'compare'; readonly op: Operator; readonly value: string };

export interface ApiConfig {
  /** https, or http for loopback hosts only. No trailing slash. */
  readonly baseUrl: string;
  /** SSM SecureString name holding the bearer token (deployed runs). */
  readonly tokenParameter: string;
  /** Per-request timeout. @default 10s */
  readonly timeoutMs: number;
}

export interface LiveCallsSource {
  /** @default 1m (EventBridge's floor) */
  readonly everyMs: number;
  /** Evenly spaced samples inside one run. @default 1 */
  readonly samples: number;
  readonly query: Readonly<Partial<Record<LiveCallQueryKey, string>>>;
}

export interface PaymentsSource {
  /** @default 5m */
  readonly everyMs: number;
  /** Window fetched with from_date/to_date; instances older than this are forgotten. @default 24h */
  readonly lookbackMs: number;
}

export interface HealthConfig {
  /** Consecutive failed polls before `source_unavailable` fires. @default 3 */
  readonly after: number;
  /** @default every channel */
  readonly notify: readonly string[];
}

/** What a channel's events group by (contract section 6): `rule`, `severity`, `source` or a label. */
export interface GroupConfig {
  /** @default ['rule'] */
  readonly by: readonly string[];
  /** How long the first event of a new group waits for company. @default 0 */
  readonly waitMs: number;
  /** A group sends at most one message per interval. @default 5m */
  readonly intervalMs: number;
}

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * When a channel's people want messages, in the config timezone. `fromMinutes` after
 * `toMinutes` is a window across midnight (22:00 to 06:00), started on one of `days`.
 */
export interface ActiveHours {
  readonly days: readonly Weekday[];
  /** Minutes after midnight, 0..1439. */
  readonly fromMinutes: number;
  /** Minutes after midnight, 1..1440 (24:00 is the end of the day). */
  readonly toMinutes: number;
}

export interface ChannelConfig {
  readonly name: string;
  readonly sms: readonly string[];
  readonly email: readonly string[];
  /** Subscriptions only receive this severity and above (an SNS filter policy). */
  readonly minSeverity?: Severity;
  readonly group: GroupConfig;
  /** SMS per rolling hour; past it the email still goes and the SMS waits for a digest. @default 20 */
  readonly smsPerHour: number;
  /** Absent: always active. */
  readonly active?: ActiveHours;
  /** A Slack channel that gets this channel's messages (contract section 9). */
  readonly slack?: SlackChannel;
  /** A Microsoft Teams channel that gets this channel's messages (contract section 9). */
  readonly teams?: TeamsChannel;
  /**
   * The rotation whose person on call the channel's SMS and email reach (contract section 8),
   * besides the fixed `sms` and `email` lists, which are always told. Absent: the lists alone.
   */
  readonly rotation?: string;
}

/** Ids as Slack shows them (`T0123ABCD`, `C0456EFGH`). */
export interface SlackChannel {
  readonly workspaceId: string;
  readonly channelId: string;
}

/** Ids from the Teams channel's link: tenant and team GUIDs, the URL-encoded channel id. */
export interface TeamsChannel {
  readonly tenantId: string;
  readonly teamId: string;
  readonly channelId: string;
}

/** Someone a rotation may page (contract section 8): at least one of `sms` and `email`. */
export interface PersonConfig {
  readonly name: string;
  /** E.164, as written. */
  readonly sms?: string;
  readonly email?: string;
}

/** When shifts change hands: a time of day in the config zone, on a weekday for weekly shifts. */
export interface HandoffTime {
  /** Absent: every day at `minutes` (the first handoff on or after `start`). */
  readonly weekday?: Weekday;
  /** Minutes after midnight, 0..1439. */
  readonly minutes: number;
}

/** Members take turns, one shift each (contract section 8; PagerDuty's schedule layer). */
export interface RotationConfig {
  readonly name: string;
  /** People's names, in turn; each names a `people` entry, none twice. */
  readonly members: readonly string[];
  /** At least 1h; counted on the wall clock of the config zone (a day is a day across DST). */
  readonly shiftMs: number;
  readonly handoff: HandoffTime;
  /** `YYYY-MM-DD`: members[0]'s first shift starts at the first handoff on or after it. */
  readonly start: string;
}

/** One step of a rule's escalation (contract section 6). */
export interface EscalationStep {
  /** Measured from the alert's firing. Steps come in increasing order. */
  readonly afterMs: number;
  readonly notify: readonly string[];
}

/** Acknowledgement by a phone call (contract section 6). */
export interface AckConfig {
  /** The provider number people call to acknowledge, canonical (`canonicalPhone`). */
  readonly did: string;
  /**
   * How long an acknowledgement by call holds (caller ID can be forged): an alert still firing
   * then is told again and its escalation resumes. @default 30m
   */
  readonly timeoutMs: number;
}

export interface RuleConfig {
  readonly name: string;
  readonly source: SourceName;
  /** Field name (API name or derived) -> condition. Every condition must hold. */
  readonly where: Readonly<Record<string, Condition>>;
  /** Present: aggregate rule over the matching records. Absent: per-record rule. */
  readonly count?: Condition;
  /** Aggregate only. */
  readonly groupBy: readonly string[];
  readonly forMs: number;
  readonly keepFiringMs: number;
  /** Undefined: never repeat. */
  readonly repeatMs?: number;
  readonly resolved: boolean;
  readonly severity: Severity;
  readonly notify: readonly string[];
  readonly summary?: string;
  /** A firing alert not acknowledged `afterMs` after firing goes to the step's channels. */
  readonly escalate?: readonly EscalationStep[];
}

/** `AWS.SNS.SMS.SMSType`: how SNS routes and prices an SMS. */
export const SMS_TYPES = ['Transactional', 'Promotional'] as const;
export type SmsType = (typeof SMS_TYPES)[number];

/** India's DLT registration (contract section 7): every SMS is this template, filled. */
export interface DltConfig {
  /** The Principal Entity id DLT issued (a digit string). */
  readonly entityId: string;
  /** The content template's id DLT issued (a digit string). */
  readonly templateId: string;
  /** The registered text, with `{#var#}` slots. */
  readonly template: string;
}

/** The `sms` block (contract section 7). */
export interface SmsConfig {
  /** @default Transactional */
  readonly type: SmsType;
  readonly senderId?: string;
  /** The account's SNS SMS spend limit; an alarm at 80% of it. @default 1 (a new account's) */
  readonly monthlyBudgetUsd: number;
  readonly dlt?: DltConfig;
}

export interface Config {
  /** IANA zone of the API's offset-less timestamps. @default Asia/Kolkata */
  readonly timezone: string;
  readonly api: ApiConfig;
  readonly sources: { readonly live_calls: LiveCallsSource; readonly payments: PaymentsSource };
  readonly health: HealthConfig;
  readonly channels: Readonly<Record<string, ChannelConfig>>;
  readonly rules: readonly RuleConfig[];
  /** Absent: no acknowledgement by call. */
  readonly ack?: AckConfig;
  /** Always filled by validation; absent in hand-built configs, meaning every default. */
  readonly sms?: SmsConfig;
  /** By name; absent when the file names nobody (contract section 8). */
  readonly people?: Readonly<Record<string, PersonConfig>>;
  /** By name; absent when the file has none. */
  readonly rotations?: Readonly<Record<string, RotationConfig>>;
}
