import { ACK_CALL } from './ack-calls';
import type { Notification } from './types';

/**
 * Alert events in the order they are told: by evaluation time; within one evaluation the
 * calls to `ack.did` first, as `evaluate` returns them (a call acknowledges what was firing
 * when it was made, not an alert that fired in the same poll); then by id, so the events of one
 * evaluation keep one order wherever they were read from (the table returns them by id).
 */
export function compareNotifications(a: Notification, b: Notification): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  const ackA = a.rule === ACK_CALL;
  if (ackA !== (b.rule === ACK_CALL)) return ackA ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
