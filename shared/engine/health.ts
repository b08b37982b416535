import { SOURCE_UNAVAILABLE } from '../messages/health';
import type { PollFailure } from '../records/types';
import type { Config, SourceName } from '../types/config';
import type { NotificationTarget } from './notify';
import { alertKey } from './state';
import type { AlertInstance } from './types';

export { SOURCE_UNAVAILABLE } from '../messages/health';

/** `source_unavailable{source=live_calls}`. */
export function healthKey(source: SourceName): string {
  return alertKey(SOURCE_UNAVAILABLE, { source });
}

/** `source_unavailable` is critical and goes to `health.notify`. */
export function healthTarget(config: Config): NotificationTarget {
  return {
    rule: undefined,
    ruleName: SOURCE_UNAVAILABLE,
    severity: 'critical',
    channels: config.health.notify,
  };
}

/** What the messages tell about an outage: the last failure and how many in a row. */
export function failureContext(failure: PollFailure, failures: number): Record<string, string> {
  return {
    kind: failure.kind,
    ...(failure.status === undefined ? {} : { status: String(failure.status) }),
    message: failure.message,
    failures: String(failures),
  };
}

/**
 * The `source_unavailable` instance after one more failed poll: created firing at exactly
 * `health.after` consecutive failures (never repeated), otherwise only its context follows the
 * latest failure. `undefined` while the source has not failed often enough.
 */
export function healthAfterFailure(
  config: Config,
  source: SourceName,
  previous: AlertInstance | undefined,
  failure: PollFailure,
  failures: number,
  nowMs: number,
): { instance: AlertInstance | undefined; fired: boolean } {
  const context = failureContext(failure, failures);
  if (previous) return { instance: { ...previous, context, lastTrueAt: nowMs }, fired: false };
  // health.after below 1 would never be reached by counting up from 1.
  if (failures < Math.max(1, config.health.after)) return { instance: undefined, fired: false };
  const labels = { source };
  return {
    fired: true,
    instance: {
      rule: SOURCE_UNAVAILABLE,
      key: healthKey(source),
      labels,
      state: 'firing',
      activeAt: nowMs,
      firedAt: nowMs,
      lastSentAt: nowMs,
      lastTrueAt: nowMs,
      lastSeenAt: nowMs,
      context,
    },
  };
}
