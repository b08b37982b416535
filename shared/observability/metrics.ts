/**
 * The names the runtime's metrics are emitted under and the stack's alarms and dashboard read:
 * one list for both sides, since `infra/` may not import `functions/`.
 */

/** CloudWatch namespace of the pollers' EMF metrics. */
export const METRIC_NAMESPACE = 'Telealert';

/** Powertools' service name; Powertools adds it to every metric's dimensions. */
export const SERVICE_NAME = 'telealert';

export const METRIC_NAMES = {
  pollSucceeded: 'PollSucceeded',
  pollFailed: 'PollFailed',
  callsByState: 'CallsByState',
  ringingCalls: 'RingingCalls',
  pendingPayments: 'PendingPayments',
  notificationsSent: 'NotificationsSent',
  apiLatency: 'ApiLatency',
  apiErrors: 'ApiErrors',
  recordsSkipped: 'RecordsSkipped',
  samplesQueued: 'SamplesQueued',
  samplesNotQueued: 'SamplesNotQueued',
  samplesDropped: 'SamplesDropped',
  /** Messages the notifier published (dimension `kind`). */
  messagesSent: 'MessagesSent',
  /** Messages whose SMS the cap held (the email went). */
  smsHeldByCap: 'SmsHeldByCap',
  /** Digests decided (deferred by active hours, or held SMS told). */
  digests: 'Digests',
  /** Events the notifier took in but could not mark sent (read again, and skipped, next round). */
  eventsNotMarkedSent: 'EventsNotMarkedSent',
  /** Owed events a notifier round left for the next one (its deadline came first). */
  eventsLeftOwed: 'EventsLeftOwed',
  /** Calls to `ack.did` from numbers in no channel: acknowledged nothing. */
  ackCallsRefused: 'AckCallsRefused',
  /**
   * Firings told but not followed for acknowledgement and escalation (the notifier follows at
   * most `MAX_FOLLOWED_ALERTS`), and followed alerts a more severe one displaced.
   */
  alertsNotFollowed: 'AlertsNotFollowed',
} as const;

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];
