/*
 * Which channels have chat, apart from the rules' schema (`chat.ts`) so that the notifier's
 * bundle, which reads it, carries no zod.
 */

/** The channels with a Slack or Teams channel: their messages carry the chat body. */
export function chatChannelNames(config: {
  readonly channels: Readonly<
    Record<string, { readonly slack?: unknown; readonly teams?: unknown }>
  >;
}): ReadonlySet<string> {
  return new Set(
    Object.entries(config.channels)
      .filter(([, channel]) => channel.slack !== undefined || channel.teams !== undefined)
      .map(([name]) => name),
  );
}
