import { createPollerHandler } from './handler';

/** The payments poller (scheduled every `sources.payments.every`). */
export const handler = createPollerHandler('payments');
