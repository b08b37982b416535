import { chatChannelNames } from '../shared/config/chat-channels';
import { smsPublishing } from '../shared/messages/sms-attributes';
import type { MessagePublisher, NotifierStore } from '../shared/ports/notifier';
import type { OwedEvents } from '../shared/ports/types';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';
import { DynamoStateStore } from './adapters/dynamodb-state';
import { SnsMessagePublisher } from './adapters/sns-messages';
import { createRuntime, type Runtime } from './runtime';
import { orphanLeft, type WiringContext } from './wiring';

/*
 * The notifier function's composition, apart from the pollers' (`wiring.ts`) so that no poller
 * bundle carries the notifier, its store or the message publisher.
 */

/** The stack's name, for the commands a chat message gives (`telealert ... --stack`). */
export const STACK_NAME_ENV = 'TELEALERT_STACK';

/** The notifier container's wiring: what a test may replace or wrap. */
export interface NotifierWiring {
  readonly runtime: Runtime;
  /** The pollers' committed events, in the state table. */
  readonly events: OwedEvents;
  readonly store: NotifierStore;
  readonly publisher: MessagePublisher;
}

/**
 * The notifier's ports: the pollers' events and its own state in the table, messages published
 * to the channels' topics.
 */
export function wireNotifier({ env, now, sleep, logger }: WiringContext): NotifierWiring {
  const runtime = createRuntime(env);
  const table = { client: runtime.dynamodb, tableName: runtime.tableName, now };
  const chatChannels = chatChannelNames(runtime.config);
  const stack = env?.[STACK_NAME_ENV];
  return {
    runtime,
    events: new DynamoStateStore({ ...table, onOrphanLeft: orphanLeft(logger) }),
    store: new DynamoNotifierStore({ ...table, onOrphanLeft: orphanLeft(logger) }),
    publisher: new SnsMessagePublisher({
      client: runtime.sns,
      topics: runtime.topics,
      ...(sleep ? { sleep } : {}),
      onFailure: (failure) => logger.warn('SNS did not take a message', { ...failure }),
      sms: smsPublishing(runtime.config),
      ...(chatChannels.size === 0
        ? {}
        : {
            chat: {
              config: runtime.config,
              channels: chatChannels,
              ...(stack === undefined ? {} : { stack }),
            },
          }),
    }),
  };
}
