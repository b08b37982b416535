import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC_NAMES } from '../shared/observability/metrics';
import type { NotifierStepResult } from '../shared/runner/notifier-step';

/**
 * What a notifier step did, as metrics (messages published, SMS held by the cap, digests
 * decided) and one log line when it decided or published anything.
 */
export function recordNotifierStep(
  result: NotifierStepResult,
  metrics: Metrics,
  logger: Logger,
): void {
  const held = result.decided.filter((item) => item.smsHeld).length;
  const digests = result.decided.filter((item) => item.message.kind === 'digest').length;
  metrics.addMetric(METRIC_NAMES.messagesSent, MetricUnit.Count, result.published.length);
  metrics.addMetric(METRIC_NAMES.smsHeldByCap, MetricUnit.Count, held);
  metrics.addMetric(METRIC_NAMES.digests, MetricUnit.Count, digests);
  if (result.released) {
    // Not an error (every event was told), but what active hours and the cap promised gave way.
    logger.warn('notifier state too large to keep: everything kept was told now', {
      decided: result.decided.length,
    });
  }
  if (result.decided.length > 0 || result.published.length > 0 || result.unpublished.length > 0) {
    logger.info('notifier step', {
      taken: result.taken,
      skipped: result.skipped,
      decided: result.decided.map((item) => ({
        id: item.message.id,
        channel: item.message.channel,
        kind: item.message.kind,
        alerts: item.message.alerts.length,
        smsHeld: item.smsHeld,
      })),
      published: result.published.length,
      unpublished: result.unpublished,
      nextDueAt:
        result.nextDueAtMs === undefined ? undefined : new Date(result.nextDueAtMs).toISOString(),
    });
  }
}
