import type { Config } from './types';

/*
 * What the validated config says of its channels, for the stack and the functions: no zod here
 * (the `sms` block's reading, `sms.ts`, is the validator's).
 */

/** The channels with SMS subscribers: their publishes carry the SMS attributes and alarms. */
export function smsChannelNames(config: Config): string[] {
  return Object.values(config.channels)
    .filter((channel) => channel.sms.length > 0)
    .map((channel) => channel.name);
}
