import type { Notification } from '../../shared/engine/types';

/** A firing event of the `ringing` per-record rule for call `key` at `atMs`, to the on-call. */
export function ringingEvent(
  key: string,
  atMs: number,
  overrides: Partial<Notification> = {},
): Notification {
  return {
    id: `ringing{call_id=${key}}|firing|${atMs}`,
    at: new Date(atMs).toISOString(),
    source: 'live_calls',
    rule: 'ringing',
    status: 'firing',
    severity: 'warning',
    channels: ['oncall'],
    key: `ringing{call_id=${key}}`,
    labels: { call_id: key },
    sms: `FIRING ringing: call ${key}`,
    subject: `[WARNING] FIRING ringing: call ${key}`,
    text: `the story of ${key}`,
    ...overrides,
  };
}
