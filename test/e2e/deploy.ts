import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import {
  type Physical,
  PSEUDO,
  resolveValue,
  resourcesOfType,
  type SynthesizedStack,
} from './template';

/** An email or SMS subscription of the template, stood in for by an SQS queue on moto. */
export interface StandIn {
  readonly logicalId: string;
  readonly protocol: string;
  readonly endpoint: string;
  readonly topicArn: string;
  /** The template's filter policy, as JSON, exactly as the stack wrote it. */
  readonly filterPolicy?: string;
  readonly queueUrl: string;
}

/** A function of the template, ready to run from its bundled asset in cdk.out. */
export interface BundledFunction {
  readonly logicalId: string;
  readonly cdkPath: string;
  readonly assetDir: string;
  /** The file and export named by the template's `Handler` (`index.handler`). */
  readonly file: string;
  readonly exportName: string;
  /** The template's `Environment.Variables`, with references replaced by what moto made. */
  readonly environment: Readonly<Record<string, string>>;
}

export interface MotoDeployment {
  readonly physical: Readonly<Record<string, Physical>>;
  readonly standIns: readonly StandIn[];
  readonly tokenParameter: string;
  readonly functions: readonly BundledFunction[];
  /** The messages that reached a stand-in's queue since the last call, deleted once read. */
  drain(standIn: StandIn): Promise<Message[]>;
  destroy(): void;
}

/** KMS over its JSON protocol: the project has no KMS client dependency, moto needs no signature. */
async function createKey(endpoint: string, input: Record<string, unknown>): Promise<string> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': 'TrentService.CreateKey',
      Authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${PSEUDO['AWS::Region']}/kms/aws4_request, SignedHeaders=host, Signature=moto`,
    },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { KeyMetadata?: { Arn?: string } };
  const arn = body.KeyMetadata?.Arn;
  if (!response.ok || !arn) throw new Error(`moto KMS CreateKey failed: ${JSON.stringify(body)}`);
  return arn;
}

const props = (resource: { Properties?: Record<string, unknown> }) => resource.Properties ?? {};

/**
 * Creates on moto what the synthesized template declares for the runtime: the KMS key, the
 * topics (encrypted with it), the state table (keys, billing mode, TTL from the template), the
 * queues (the dead-letter queue, the sample queue with its redrive policy), an SQS stand-in
 * per email/SMS subscription with the template's filter policy, and the token
 * parameter the functions' IAM policy names. Then reads each function's environment and
 * bundled asset. Alarms, schedules, roles and log groups are not created: nothing on moto
 * would exercise them.
 *
 * Created through the service APIs rather than moto's CloudFormation: moto 5.2.1 has no
 * `AWS::SNS::Subscription` resource (the filter policies would be lost) and ignores a table's
 * `TimeToLiveSpecification`, the two things this suite is here to prove.
 */
export async function deployToMoto(
  stack: SynthesizedStack,
  options: { endpoint: string; prefix: string; token: string },
): Promise<MotoDeployment> {
  const { prefix } = options;
  const dynamodb = new DynamoDBClient({});
  const sns = new SNSClient({});
  const sqs = new SQSClient({});
  const ssm = new SSMClient({});
  const physical: Record<string, Physical> = {};

  for (const [id, key] of resourcesOfType(stack, 'AWS::KMS::Key')) {
    const { Description, KeyPolicy } = props(key);
    const arn = await createKey(options.endpoint, {
      Description,
      Policy: JSON.stringify(resolveValue(KeyPolicy, physical)),
    });
    physical[id] = { ref: arn.split('/').pop() ?? arn, attributes: { Arn: arn } };
  }

  for (const [id, topic] of resourcesOfType(stack, 'AWS::SNS::Topic')) {
    const { KmsMasterKeyId } = props(topic);
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({
        Name: `${prefix}-${id}`,
        Attributes: KmsMasterKeyId
          ? { KmsMasterKeyId: String(resolveValue(KmsMasterKeyId, physical)) }
          : {},
      }),
    );
    if (!TopicArn) throw new Error(`moto created no topic for ${id}`);
    physical[id] = { ref: TopicArn, attributes: { TopicArn } };
  }

  for (const [id, table] of resourcesOfType(stack, 'AWS::DynamoDB::Table')) {
    const p = props(table);
    const TableName = `${prefix}-${id}`;
    const sse = p.SSESpecification as { SSEEnabled: boolean } | undefined;
    await dynamodb.send(
      new CreateTableCommand({
        TableName,
        KeySchema: p.KeySchema as CreateTableCommandInput['KeySchema'],
        AttributeDefinitions:
          p.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
        BillingMode: p.BillingMode as CreateTableCommandInput['BillingMode'],
        SSESpecification: sse ? { Enabled: sse.SSEEnabled } : undefined,
      }),
    );
    const pitr = p.PointInTimeRecoverySpecification as
      | { PointInTimeRecoveryEnabled: boolean }
      | undefined;
    if (pitr) {
      await dynamodb.send(
        new UpdateContinuousBackupsCommand({
          TableName,
          PointInTimeRecoverySpecification: pitr,
        }),
      );
    }
    const ttl = p.TimeToLiveSpecification as
      | { AttributeName: string; Enabled: boolean }
      | undefined;
    if (ttl) {
      await dynamodb.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: ttl }));
    }
    const arn = `arn:aws:dynamodb:${PSEUDO['AWS::Region']}:${PSEUDO['AWS::AccountId']}:table/${TableName}`;
    physical[id] = { ref: TableName, attributes: { Arn: arn } };
  }

  // Queues that others redrive to first, so a redrive policy can name its target's ARN.
  const queues = resourcesOfType(stack, 'AWS::SQS::Queue').sort(
    ([, a], [, b]) => Number('RedrivePolicy' in props(a)) - Number('RedrivePolicy' in props(b)),
  );
  for (const [id, queue] of queues) {
    const p = props(queue);
    const attributes: Record<string, string> = {};
    for (const name of ['MessageRetentionPeriod', 'VisibilityTimeout', 'SqsManagedSseEnabled']) {
      if (p[name] !== undefined) attributes[name] = String(p[name]);
    }
    if (p.RedrivePolicy) {
      attributes.RedrivePolicy = JSON.stringify(resolveValue(p.RedrivePolicy, physical));
    }
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: `${prefix}-${id}`, Attributes: attributes }),
    );
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    if (!QueueUrl || !Attributes?.QueueArn) throw new Error(`moto created no queue for ${id}`);
    physical[id] = {
      ref: QueueUrl,
      attributes: { Arn: Attributes.QueueArn, QueueUrl, QueueName: `${prefix}-${id}` },
    };
  }

  const standIns: StandIn[] = [];
  for (const [id, subscription] of resourcesOfType(stack, 'AWS::SNS::Subscription')) {
    const p = props(subscription);
    const protocol = String(p.Protocol);
    if (protocol !== 'email' && protocol !== 'sms') {
      throw new Error(`subscription ${id}: no stand-in for protocol ${protocol}`);
    }
    const topicArn = String(resolveValue(p.TopicArn, physical));
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-${id}` }));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const policy = p.FilterPolicy as Record<string, unknown> | undefined;
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: Attributes?.QueueArn,
        Attributes: {
          // Raw: the queue's body is the published `sqs` body, what email/SMS would render from.
          RawMessageDelivery: 'true',
          ...(policy ? { FilterPolicy: JSON.stringify(policy) } : {}),
          ...(p.FilterPolicyScope ? { FilterPolicyScope: String(p.FilterPolicyScope) } : {}),
        },
      }),
    );
    standIns.push({
      logicalId: id,
      protocol,
      endpoint: String(p.Endpoint),
      topicArn,
      filterPolicy: policy ? JSON.stringify(policy) : undefined,
      queueUrl: QueueUrl ?? '',
    });
  }

  const tokenParameter = tokenParameterOf(stack, physical);
  await ssm.send(
    new PutParameterCommand({ Name: tokenParameter, Value: options.token, Type: 'SecureString' }),
  );

  const functions = resourcesOfType(stack, 'AWS::Lambda::Function').map(
    ([id, fn]): BundledFunction => {
      const p = props(fn);
      const assetPath = fn.Metadata?.['aws:asset:path'];
      if (typeof assetPath !== 'string') throw new Error(`function ${id} has no bundled asset`);
      const [file, exportName] = String(p.Handler).split('.');
      const variables = (p.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      return {
        logicalId: id,
        cdkPath: String(fn.Metadata?.['aws:cdk:path']),
        assetDir: join(stack.outdir, assetPath),
        file: `${file}.mjs`,
        exportName: exportName ?? 'handler',
        environment: resolveValue(variables ?? {}, physical) as Record<string, string>,
      };
    },
  );

  return {
    physical,
    standIns,
    tokenParameter,
    functions,
    async drain(standIn) {
      const messages: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: standIn.queueUrl,
            MaxNumberOfMessages: 10,
            MessageAttributeNames: ['All'],
            WaitTimeSeconds: 0,
          }),
        );
        if (Messages.length === 0) return messages;
        messages.push(...Messages);
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: standIn.queueUrl,
            Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
      }
    },
    destroy() {
      for (const client of [dynamodb, sns, sqs, ssm]) client.destroy();
    },
  };
}

/**
 * The token parameter's name, from the one `ssm:GetParameter` resource the functions' policies
 * grant: `arn:...:parameter/a/b` is `/a/b` (the ARN drops a hierarchical name's leading `/`).
 */
function tokenParameterOf(
  stack: SynthesizedStack,
  physical: Readonly<Record<string, Physical>>,
): string {
  const names = new Set<string>();
  for (const [, policy] of resourcesOfType(stack, 'AWS::IAM::Policy')) {
    const document = props(policy).PolicyDocument as { Statement: Record<string, unknown>[] };
    for (const statement of document.Statement) {
      const actions = [statement.Action].flat();
      if (!actions.includes('ssm:GetParameter')) continue;
      for (const resource of [statement.Resource].flat()) {
        const arn = String(resolveValue(resource, physical));
        const rest = arn.split(':parameter/').pop() ?? '';
        names.add(rest.includes('/') ? `/${rest}` : rest);
      }
    }
  }
  const [name, ...others] = names;
  if (!name || others.length > 0) {
    throw new Error(`expected one token parameter in the IAM policies, found ${[...names]}`);
  }
  return name;
}
