import { sqsSampleQueue } from './adapters/sqs-samples';
import { createPollerHandler } from './handler';

/**
 * The live calls poller (scheduled every `sources.live_calls.every`; its later samples come
 * back through its sample queue).
 */
export const handler = createPollerHandler('live_calls', { sampleQueue: sqsSampleQueue });
