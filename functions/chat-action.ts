import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ChatActionAnswer, chatAction } from '../shared/runner/chat-action';
import { clientOptions } from './adapters/clients';
import { DynamoNotifierStore } from './adapters/dynamodb-notifier';

/*
 * The chat buttons' function (contract section 9): Acknowledge and Silence 1h, run by the chat
 * service with the channel's role. It reads and writes the notifier's partition of the state
 * table only (its role says so: infra/chat.ts), and loads neither the rules nor the notifier.
 */

let store: DynamoNotifierStore | undefined;

function notifierStore(): DynamoNotifierStore {
  const tableName = process.env.TELEALERT_TABLE;
  if (tableName === undefined || tableName === '') {
    throw new Error('TELEALERT_TABLE is not set: deploy the function with the telealert stack');
  }
  store ??= new DynamoNotifierStore({
    client: new DynamoDBClient(clientOptions({ requestTimeoutMs: 5_000 })),
    tableName,
  });
  return store;
}

/** Invoked by a button's `lambda invoke`; the answer is what the thread shows. */
export async function handler(event: unknown): Promise<ChatActionAnswer> {
  return chatAction(notifierStore(), event, Date.now());
}
