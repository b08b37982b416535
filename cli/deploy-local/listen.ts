import { SNSClient, SubscribeCommand, UnsubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeployedSubscription, DeployedTopic } from './stack';

/**
 * An SQS queue standing in for one deployed email or SMS subscription: subscribed to the same
 * topic with the same filter policy (as SNS holds it) and raw delivery, so what reaches it is
 * what that address or number would be sent (the `sqs` body, from which email and SMS are
 * written). moto delivers no email or SMS.
 */
export interface Listener {
  readonly topic: DeployedTopic;
  readonly subscription: DeployedSubscription;
  readonly queueUrl: string;
}

export interface Listeners {
  readonly all: readonly Listener[];
  /** The messages that reached a listener since the last call, deleted once read. */
  drain(listener: Listener): Promise<Message[]>;
  /** Unsubscribes and deletes the stand-in queues (they are not the stack's). */
  close(): Promise<void>;
}

/** Listens, with a stand-in each, to every subscription of `topics` that is not already SQS. */
export async function listenToSubscriptions(
  topics: readonly DeployedTopic[],
  prefix: string,
): Promise<Listeners> {
  const sns = new SNSClient({});
  const sqs = new SQSClient({});
  const all: Listener[] = [];
  const subscriptions: string[] = [];
  for (const topic of topics) {
    for (const subscription of topic.subscriptions) {
      if (subscription.protocol === 'sqs') continue;
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: `${prefix}-${all.length}` }),
      );
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      if (!QueueUrl || !Attributes?.QueueArn) throw new Error(`moto created no queue ${prefix}`);
      const { SubscriptionArn } = await sns.send(
        new SubscribeCommand({
          TopicArn: topic.arn,
          Protocol: 'sqs',
          Endpoint: Attributes.QueueArn,
          Attributes: {
            RawMessageDelivery: 'true',
            ...(subscription.filterPolicy === undefined
              ? {}
              : {
                  FilterPolicy: JSON.stringify(subscription.filterPolicy),
                  FilterPolicyScope: subscription.filterPolicyScope ?? 'MessageAttributes',
                }),
          },
        }),
      );
      if (SubscriptionArn) subscriptions.push(SubscriptionArn);
      all.push({ topic, subscription, queueUrl: QueueUrl });
    }
  }
  return {
    all,
    async drain(listener) {
      const messages: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: listener.queueUrl,
            MaxNumberOfMessages: 10,
            MessageAttributeNames: ['All'],
            WaitTimeSeconds: 0,
          }),
        );
        if (Messages.length === 0) return messages;
        messages.push(...Messages);
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: listener.queueUrl,
            Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
      }
    },
    async close() {
      try {
        for (const arn of subscriptions) {
          await sns.send(new UnsubscribeCommand({ SubscriptionArn: arn }));
        }
        for (const { queueUrl } of all) {
          await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
        }
      } finally {
        sns.destroy();
        sqs.destroy();
      }
    },
  };
}
