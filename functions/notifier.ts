import { createNotifierHandler } from './notifier-handler';

/** The notifier Lambda (scheduled every minute; pollers also run its step after each commit). */
export const handler = createNotifierHandler();
