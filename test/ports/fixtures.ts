import type { Notification, SourceState } from '../../shared/engine/types';
import { STATE_VERSION } from '../../shared/engine/types';
import type { SourceName } from '../../shared/types/config';

/** A small but realistic state: one firing alert. */
export function sampleState(source: SourceName = 'live_calls', failures = 0): SourceState {
  return {
    version: STATE_VERSION,
    source,
    consecutiveFailures: failures,
    alerts: {
      'too-many-ringing{did=+918000000001}': {
        rule: 'too-many-ringing',
        key: 'too-many-ringing{did=+918000000001}',
        labels: { did: '+918000000001' },
        state: 'firing',
        activeAt: 1_000,
        firedAt: 61_000,
        lastSentAt: 61_000,
        lastTrueAt: 61_000,
        lastSeenAt: 61_000,
        value: 6,
        context: {},
      },
    },
  };
}

/** A notification whose id follows the engine's `${key}|${status}|${at}` scheme. */
export function sampleNotification(
  overrides: Partial<Notification> & { readonly at?: string } = {},
): Notification {
  const at = overrides.at ?? '2026-11-21T04:31:00.000Z';
  const key = overrides.key ?? 'too-many-ringing{did=+918000000001}';
  const status = overrides.status ?? 'firing';
  return {
    id: `${key}|${status}|${at}`,
    at,
    source: 'live_calls',
    rule: 'too-many-ringing',
    status,
    severity: 'critical',
    channels: ['oncall'],
    key,
    labels: { did: '+918000000001' },
    value: 6,
    sms: 'CRITICAL 6 calls ringing on +918000000001',
    subject: 'CRITICAL: 6 calls ringing on +918000000001',
    text: '6 calls ringing on +918000000001 since 2026-11-21 10:00:05 IST',
    ...overrides,
  };
}
