import { createPollerHandler } from './handler';

/** The live calls poller (scheduled every `sources.live_calls.every`). */
export const handler = createPollerHandler('live_calls');
