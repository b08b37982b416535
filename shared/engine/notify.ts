import { renderMessage } from '../messages/render';
import type { NotificationStatus } from '../messages/types';
import type { Config, RuleConfig, Severity, SourceName } from '../types/config';
import type { AlertInstance, Notification } from './types';

/** Who a notification is for: a configured rule, or the built-in `source_unavailable`. */
export interface NotificationTarget {
  readonly rule: RuleConfig | undefined;
  readonly ruleName: string;
  readonly severity: Severity;
  readonly channels: readonly string[];
}

/**
 * Builds one notification for an instance (contract section 4). `id` is
 * `${key}|${status}|${at}` with `at` the evaluation time in ISO-8601 UTC, so a retried run
 * produces the same id and delivery can de-duplicate. Texts come from `renderMessage`;
 * `reason` says why a `resolved` one resolved when the condition was not seen to stop holding.
 */
export function buildNotification(
  config: Config,
  source: SourceName,
  target: NotificationTarget,
  status: NotificationStatus,
  instance: AlertInstance,
  nowMs: number,
  reason?: string,
): Notification {
  const at = new Date(nowMs).toISOString();
  const { sms, subject, text } = renderMessage({
    config,
    rule: target.rule,
    ruleName: target.ruleName,
    source,
    status,
    severity: target.severity,
    key: instance.key,
    labels: instance.labels,
    ...(instance.value === undefined ? {} : { value: instance.value }),
    context: instance.context,
    atMs: nowMs,
    activeAtMs: instance.activeAt,
    ...(instance.firedAt === undefined ? {} : { firedAtMs: instance.firedAt }),
    ...(reason === undefined ? {} : { reason }),
  });
  return {
    id: `${instance.key}|${status}|${at}`,
    at,
    source,
    rule: target.ruleName,
    status,
    severity: target.severity,
    channels: target.channels,
    key: instance.key,
    labels: instance.labels,
    ...(instance.value === undefined ? {} : { value: instance.value }),
    ...(instance.firedAt === undefined
      ? {}
      : { firedAt: new Date(instance.firedAt).toISOString() }),
    ...(status === 'resolved' && target.rule?.resolved === false ? { untold: true as const } : {}),
    sms,
    subject,
    text,
  };
}
