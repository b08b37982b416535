import type { Notification } from './types';

/**
 * Alert events in the order they are told: by evaluation time, then id (so two events of one
 * evaluation keep one order wherever they were read from).
 */
export function compareNotifications(a: Notification, b: Notification): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
