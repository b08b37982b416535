import { createNotifierHandler } from './notifier-handler';

/** The notifier Lambda: invoked by the state table's stream when a poller commits, and every minute. */
export const handler = createNotifierHandler();
