import { SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import type { Message } from '../../shared/notifier/types';

/** The JSON SNS holds of a CDK filter policy. */
function policyJson(filter: Record<string, SubscriptionFilter>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(filter).map(([name, value]) => [name, value.conditions])),
  );
}

/**
 * SQS queues standing in for a topic's SMS and email subscribers on moto: each subscribed with
 * raw delivery and the filter policy the stack gives the subscriber it stands for, so SNS
 * delivers to it exactly what it would deliver to that phone or mailbox.
 */
export class StandIns {
  readonly #sqs = new SQSClient({});
  readonly #sns = new SNSClient({});
  readonly #urls = new Map<string, string>();

  /** `prefix` keeps queue names apart between test files sharing a moto. */
  constructor(private readonly prefix: string) {}

  /** A queue named for `name`, subscribed to `topicArn` with `filter`. */
  async add(topicArn: string, name: string, filter: Record<string, SubscriptionFilter>) {
    const { QueueUrl } = await this.#sqs.send(
      new CreateQueueCommand({ QueueName: `${this.prefix}-${name.replaceAll(' ', '-')}` }),
    );
    const { Attributes } = await this.#sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    await this.#sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: Attributes?.QueueArn,
        Attributes: { RawMessageDelivery: 'true', FilterPolicy: policyJson(filter) },
      }),
    );
    this.#urls.set(name, QueueUrl ?? '');
  }

  /** The messages that reached `name` since the last look, each as `show` tells it; then gone. */
  async reached(name: string, show: (message: Message) => string): Promise<string[]> {
    const url = this.#urls.get(name);
    if (url === undefined) throw new Error(`no stand-in named ${name}`);
    const out: string[] = [];
    for (;;) {
      const { Messages = [] } = await this.#sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (Messages.length === 0) return out;
      for (const message of Messages) out.push(show(JSON.parse(message.Body ?? '{}') as Message));
      await this.#sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
    }
  }

  destroy(): void {
    this.#sqs.destroy();
    this.#sns.destroy();
  }
}
