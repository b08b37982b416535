import type { Notification } from '../engine/types';

/**
 * The notification owed to `channels` only: the same id and content, its channels the ones it
 * had that are in `channels` (in their original order), so narrowing never adds a channel.
 */
export function narrowChannels(
  notification: Notification,
  channels: readonly string[],
): Notification {
  const keep = new Set(channels);
  return { ...notification, channels: notification.channels.filter((c) => keep.has(c)) };
}
