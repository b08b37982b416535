import type { Config, RuleConfig, Severity, SourceName } from '../types/config';

/** What a notification tells of its alert. */
export type NotificationStatus = 'firing' | 'resolved';

/** What the engine hands the message renderer for one notification. */
export interface MessageInput {
  readonly config: Config;
  /** Undefined for the built-in `source_unavailable` alert. */
  readonly rule: RuleConfig | undefined;
  readonly ruleName: string;
  readonly source: SourceName;
  readonly status: NotificationStatus;
  readonly severity: Severity;
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The count, for aggregate rules. */
  readonly value?: number;
  /** Record fields (per-record rules) or extra facts, as display text. */
  readonly context: Readonly<Record<string, string>>;
  readonly atMs: number;
  readonly activeAtMs: number;
  readonly firedAtMs?: number;
  /** Why it resolved, when not because the condition stopped holding ("no longer tracked ..."). */
  readonly reason?: string;
}

/** The three renderings of one notification (contract section 4). */
export interface RenderedMessage {
  /** One SMS segment at most. */
  readonly sms: string;
  /** Under 100 ASCII characters, one line. */
  readonly subject: string;
  /** The full story, for email. */
  readonly text: string;
}
