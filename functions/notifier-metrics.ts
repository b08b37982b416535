import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { MAX_FOLLOWED_ALERTS } from '../shared/notifier/follow';
import { messageJson } from '../shared/notifier/json';
import type { MessageKind } from '../shared/notifier/types';
import { HANDOFF_LOG_MESSAGE, METRIC_NAMES } from '../shared/observability/metrics';
import type { NotifierRoundResult } from '../shared/runner/notifier-round';

/** What a notifier invocation returns: small whatever the round did (a stream invokes it). */
export interface NotifierSummary {
  /** Alert events taken in; those taken before are `skipped`. */
  readonly taken: number;
  readonly skipped: number;
  /** The messages decided, by id. */
  readonly decided: readonly {
    readonly id: string;
    readonly channel: string;
    readonly kind: MessageKind;
    readonly alerts: number;
    readonly smsHeld: boolean;
  }[];
  /** Ids of the messages published (this round's and earlier rounds' owed ones). */
  readonly published: readonly string[];
  /** Ids of owed messages not published (the next round tries again). */
  readonly unpublished: readonly string[];
  /** Ids of owed messages no longer owed: their channel has no topic (logged whole). */
  readonly undeliverable?: readonly string[];
  readonly released: boolean;
  /** Firings told but not followed for escalation or acknowledgement, and followed alerts displaced; absent when none. */
  readonly unfollowed?: number;
  /** Sources whose events could not be marked sent (taken again, and skipped, next round). */
  readonly markSentFailed: readonly string[];
  /** Owed events left for the next round (the deadline came first), and the steps taken. */
  readonly left: number;
  readonly steps: number;
  /** When the next held message is due, ISO-8601. */
  readonly nextDueAt?: string;
}

/** The log line of each message dropped because its channel has no topic. */
export const UNDELIVERABLE_LOG_MESSAGE = 'message undeliverable: its channel has no topic';

/**
 * What a notifier round did, as log lines (the dashboard's "Messages" and "Notifications sent"
 * query them); returns its summary. The `notifier round` line carries the round's counts as
 * flat fields, and each source, rule and status of the alert events taken in gets an `alert
 * events taken in` line. One metric, only when it happens: `MessagesUndeliverable`, the
 * messages owed to a channel with no topic (the `MessagesUndeliverable` alarm reads it), each
 * also logged whole as an error so that what it told can be told by hand (contract 6.1 rule 8).
 */
export function recordNotifierRound(
  result: NotifierRoundResult,
  logger: Logger,
  metrics?: Metrics,
): NotifierSummary {
  const events = new Map<string, { source: string; rule: string; status: string; n: number }>();
  for (const { source, rule, status } of result.takenEvents) {
    const key = JSON.stringify([source, rule, status]);
    const counted = events.get(key);
    if (counted) counted.n += 1;
    else events.set(key, { source, rule, status, n: 1 });
  }
  for (const { source, rule, status, n } of events.values()) {
    logger.info('alert events taken in', { source, rule, status, events: n });
  }
  const counts = {
    messagesSent: result.published.length,
    smsHeld: result.decided.filter((item) => item.smsHeld).length,
    digests: result.decided.filter((item) => item.message.kind === 'digest').length,
    eventsLeftOwed: result.left,
    eventsNotMarkedSent: result.markSentFailed.reduce((sum, failure) => sum + failure.events, 0),
    alertsNotFollowed: result.unfollowed.length,
    messagesUndeliverable: result.undeliverable.length,
    ackCallsUnanswered: result.unanswered,
  };
  for (const message of result.undeliverable) {
    logger.error(UNDELIVERABLE_LOG_MESSAGE, {
      channel: message.channel,
      messageId: message.id,
      kind: message.kind,
      alerts: message.alerts.map((alert) => `${alert.key} ${alert.status}`),
      message: messageJson(message),
    });
  }
  if (result.undeliverable.length > 0) {
    metrics?.addMetric(
      METRIC_NAMES.messagesUndeliverable,
      MetricUnit.Count,
      result.undeliverable.length,
    );
  }
  if (result.left > 0) {
    logger.warn('a backlog of alert events: the next round takes the rest', {
      taken: result.taken,
      left: result.left,
      steps: result.steps,
    });
  }
  if (result.unfollowed.length > 0) {
    // Told all the same, but what escalation and acknowledgement promise does not hold for them.
    const displaced = result.unfollowed.filter((item) => item.reason === 'displaced');
    logger.warn('alerts not followed for escalation or acknowledgement: too many are firing', {
      limit: MAX_FOLLOWED_ALERTS,
      notFollowed: result.unfollowed.length - displaced.length,
      displaced: displaced.length,
      examples: result.unfollowed.slice(0, 5).map((item) => item.key),
    });
  }
  if (result.released) {
    // Not an error (every event was told), but what active hours and the cap promised gave way.
    logger.warn('notifier state too large to keep: everything kept was told now', {
      decided: result.decided.length,
    });
  }
  for (const { source, events, error } of result.markSentFailed) {
    logger.warn('alert events taken in could not be marked sent; the next round skips them', {
      source,
      events,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  for (const { message } of result.decided) {
    if (message.kind !== 'handoff') continue;
    logger.info(HANDOFF_LOG_MESSAGE, {
      channel: message.channel,
      oncall: message.oncall,
      until: message.subject,
    });
  }
  const summary: NotifierSummary = {
    taken: result.taken,
    skipped: result.skipped,
    decided: result.decided.map((item) => ({
      id: item.message.id,
      channel: item.message.channel,
      kind: item.message.kind,
      alerts: item.message.alerts.length,
      smsHeld: item.smsHeld,
    })),
    published: result.published,
    unpublished: result.unpublished,
    ...(result.undeliverable.length === 0
      ? {}
      : { undeliverable: result.undeliverable.map((message) => message.id) }),
    released: result.released,
    ...(result.unfollowed.length === 0 ? {} : { unfollowed: result.unfollowed.length }),
    markSentFailed: result.markSentFailed.map((failure) => failure.source),
    left: result.left,
    steps: result.steps,
    ...(result.nextDueAtMs === undefined
      ? {}
      : { nextDueAt: new Date(result.nextDueAtMs).toISOString() }),
  };
  if (
    summary.taken > 0 ||
    summary.decided.length > 0 ||
    summary.published.length > 0 ||
    summary.unpublished.length > 0 ||
    Object.values(counts).some((count) => count > 0)
  ) {
    logger.info('notifier round', { ...summary, ...counts });
  }
  return summary;
}
