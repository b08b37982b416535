import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { chatChannelNames } from '../shared/config/chat-channels';
import { smsPublishing } from '../shared/messages/sms-attributes';
import type { MessagePublisher, NotifierStore } from '../shared/ports/notifier';
import type { OwedEvents } from '../shared/ports/types';
import type { Config } from '../shared/types/config';
import { clientOptions } from './adapters/clients';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';
import { DynamoStateStore } from './adapters/dynamodb-state';
import { SnsMessagePublisher } from './adapters/sns-messages';
import { ENV, loadRuntimeConfig, readTopics, tableNameOf } from './runtime';
import { orphanLeft, type WiringContext } from './wiring';

/*
 * The notifier function's composition, apart from the pollers' (`wiring.ts`) so that no poller
 * bundle carries the notifier, its store, the message publisher or the SNS client.
 */

/** The stack's name, for the commands a chat message gives (`telealert ... --stack`). */
export const STACK_NAME_ENV = 'TELEALERT_STACK';

/** What the notifier's container sets up once: the rules, the table, the topics, the clients. */
export interface NotifierRuntime {
  readonly config: Config;
  readonly tableName: string;
  /** Channel name -> SNS topic ARN. */
  readonly topics: Readonly<Record<string, string>>;
  readonly dynamodb: DynamoDBClient;
  readonly sns: SNSClient;
}

/**
 * The notifier's runtime: the rules (as `loadRuntimeConfig`), `TELEALERT_TABLE`, and
 * `TELEALERT_TOPICS` with a topic for every channel; the SDK clients with their limits.
 *
 * @throws RuntimeConfigError for a missing or malformed variable or a channel without a topic;
 *   ConfigError (shared/config) for a config that is not the validated one.
 */
export function createNotifierRuntime(
  env: NodeJS.ProcessEnv = process.env,
  configDigest?: string,
): NotifierRuntime {
  const config = loadRuntimeConfig(env, configDigest);
  const tableName = tableNameOf(env);
  const topics = readTopics(env[ENV.topics], config);
  const options = clientOptions();
  return {
    config,
    tableName,
    topics,
    dynamodb: new DynamoDBClient(options),
    sns: new SNSClient(options),
  };
}

/** The notifier container's wiring: what a test may replace or wrap. */
export interface NotifierWiring {
  readonly runtime: NotifierRuntime;
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
  const runtime = createNotifierRuntime(env ?? process.env);
  const table = { client: runtime.dynamodb, tableName: runtime.tableName, now };
  const chatChannels = chatChannelNames(runtime.config);
  const stack = (env ?? process.env)[STACK_NAME_ENV];
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
