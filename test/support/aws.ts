import {
  CreateTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { SEVERITIES, type Severity } from '../../shared/types/config';

/** What the stack would create, on moto: one topic per channel, each with a queue listening. */
export interface FakeStack {
  readonly tableName: string;
  /** The state table's stream (keys only). */
  readonly streamArn: string;
  /** Channel name -> topic ARN (the `TELEALERT_TOPICS` value). */
  readonly topics: Record<string, string>;
  /** Every notification body that reached a channel's queue since the last drain. */
  drain(channel: string): Promise<Record<string, unknown>[]>;
  putToken(value: string): Promise<void>;
  destroy(): void;
}

export interface FakeStackOptions {
  readonly prefix: string;
  readonly channels: Readonly<Record<string, { readonly minSeverity?: Severity }>>;
  readonly tokenParameter: string;
  readonly token: string;
}

/** The filter policy the stack puts on a channel's subscriptions for `minSeverity`. */
export function severityFilterPolicy(minSeverity: Severity): string {
  return JSON.stringify({ severity: SEVERITIES.slice(SEVERITIES.indexOf(minSeverity)) });
}

/**
 * The state table as the stack declares it: string keys `pk`/`sk`, on demand, a stream of keys
 * (what invokes the notifier). Resolves with the stream's ARN.
 */
export async function createStateTable(client: DynamoDBClient, tableName: string): Promise<string> {
  const { TableDescription } = await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
    }),
  );
  return TableDescription?.LatestStreamArn ?? '';
}

/**
 * Creates the table (keys, stream and TTL as the stack), the topics, an SQS queue per topic
 * subscribed with raw delivery (so a message body is the `sqs` body: the notification JSON) and
 * the stack's severity filter policy, and the SecureString token.
 */
export async function createFakeStack(options: FakeStackOptions): Promise<FakeStack> {
  const dynamodb = new DynamoDBClient({});
  const sns = new SNSClient({});
  const sqs = new SQSClient({});
  const ssm = new SSMClient({});
  const tableName = `${options.prefix}-state`;
  const streamArn = await createStateTable(dynamodb, tableName);
  await dynamodb.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    }),
  );
  const topics: Record<string, string> = {};
  const queues: Record<string, string> = {};
  for (const [channel, { minSeverity }] of Object.entries(options.channels)) {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({ Name: `${options.prefix}-${channel}` }),
    );
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: `${options.prefix}-${channel}` }),
    );
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    await sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: Attributes?.QueueArn,
        Attributes: {
          RawMessageDelivery: 'true',
          ...(minSeverity ? { FilterPolicy: severityFilterPolicy(minSeverity) } : {}),
        },
      }),
    );
    topics[channel] = TopicArn ?? '';
    queues[channel] = QueueUrl ?? '';
  }
  await ssm.send(
    new PutParameterCommand({
      Name: options.tokenParameter,
      Value: options.token,
      Type: 'SecureString',
    }),
  );

  return {
    tableName,
    streamArn,
    topics,
    async drain(channel) {
      const bodies: Record<string, unknown>[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queues[channel],
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
          }),
        );
        if (Messages.length === 0) return bodies;
        for (const message of Messages) bodies.push(JSON.parse(message.Body ?? '{}'));
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queues[channel],
            Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
      }
    },
    async putToken(value) {
      await ssm.send(
        new PutParameterCommand({
          Name: options.tokenParameter,
          Value: value,
          Type: 'SecureString',
          Overwrite: true,
        }),
      );
    },
    destroy() {
      for (const client of [dynamodb, sns, sqs, ssm]) client.destroy();
    },
  };
}
