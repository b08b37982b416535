import { ArnFormat, Aws, Stack, Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { InvalidPropError } from './errors';

const KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;

/**
 * What a poller's state store does (functions/adapters/dynamodb-state.ts): reads its partition
 * (state item and owed items) with Query, writes owed items and commits the state with
 * (conditional) UpdateItem, and removes orphaned owed items with a conditional DeleteItem. It
 * marks nothing sent: the notifier does. Keep in step with that adapter.
 */
export const POLLER_TABLE_ACTIONS = [
  'dynamodb:Query',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const;

/**
 * What the notifier's stores do (functions/adapters/dynamodb-notifier.ts, and
 * dynamodb-state.ts as the pollers' owed events): the pollers' actions, and BatchWriteItem to
 * mark events and messages sent (deletes, and the messages' tombstones).
 */
export const NOTIFIER_TABLE_ACTIONS = [...POLLER_TABLE_ACTIONS, 'dynamodb:BatchWriteItem'] as const;

/** Publishing to a KMS-encrypted topic: SNS asks KMS for a data key in the caller's name. */
export const TOPIC_KEY_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey'] as const;

export interface PollerAccess {
  /**
   * The API token: its SSM parameter name (e.g. `/telealert/api-token`) and the KMS key it is
   * encrypted with, if not `aws/ssm`. Absent for the poller of a source no rule reads, which
   * asks the API nothing.
   */
  readonly token?: { readonly parameter: string; readonly keyArn?: string | undefined };
  readonly table: ITable;
}

export interface NotifierAccess {
  readonly table: ITable;
  readonly topics: readonly ITopic[];
  readonly key: IKey;
}

/** ARN of an SSM parameter given by name; hierarchical names start with `/`, the ARN drops it. */
export function parameterArn(stack: Stack, name: string): string {
  return stack.formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: name.replace(/^\//, ''),
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/**
 * The notifier's least privilege: the state table (its own partition, and the sources' owed
 * events it takes and marks sent) and the stack's topics with their key. No token: it never
 * calls the API. Reading the table's stream is granted by its event source.
 */
export function grantNotifierAccess(role: IRole, access: NotifierAccess): void {
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'StateTable',
      actions: [...NOTIFIER_TABLE_ACTIONS],
      resources: [access.table.tableArn],
    }),
  );
  if (access.topics.length === 0) return;
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'PublishMessages',
      actions: ['sns:Publish'],
      resources: access.topics.map((topic) => topic.topicArn),
    }),
  );
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'EncryptMessages',
      actions: [...TOPIC_KEY_ACTIONS],
      resources: [access.key.keyArn],
    }),
  );
}

/**
 * The pollers' least privilege: the one token parameter (none for a source no rule reads) and
 * the state table. No topic: a
 * poller commits its events, and the notifier alone publishes. Logs are granted per log group
 * by the caller; metrics go out as EMF in the logs, so there is no `cloudwatch:PutMetricData`.
 */
export function grantPollerAccess(role: IRole, access: PollerAccess): void {
  if (access.token !== undefined) grantTokenRead(role, access.token);
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'StateTable',
      actions: [...POLLER_TABLE_ACTIONS],
      resources: [access.table.tableArn],
    }),
  );
}

function grantTokenRead(role: IRole, token: NonNullable<PollerAccess['token']>): void {
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: 'ReadApiToken',
      actions: ['ssm:GetParameter'],
      resources: [parameterArn(Stack.of(role), token.parameter)],
    }),
  );
  if (token.keyArn) {
    if (!Token.isUnresolved(token.keyArn) && !KEY_ARN.test(token.keyArn)) {
      throw new InvalidPropError(
        'tokenKeyArn',
        'must be a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID)',
      );
    }
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DecryptApiTokenViaSsm',
        actions: ['kms:Decrypt'],
        resources: [token.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `ssm.${Aws.REGION}.amazonaws.com` } },
      }),
    );
  }
}

/**
 * Lets CloudWatch alarms of this account publish to the on-call topics: the topic policy only
 * denies plain HTTP, so the service principal needs its own allow, and the topic key must let
 * it make data keys. Both are tied to this account's alarms (confused-deputy conditions).
 */
export function allowCloudWatchAlarms(key: IKey, topics: readonly ITopic[]): void {
  const cloudwatch = new ServicePrincipal('cloudwatch.amazonaws.com');
  const conditions = {
    StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
    ArnLike: {
      'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
    },
  };
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToUseTopicKey',
      principals: [cloudwatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions,
    }),
  );
  for (const topic of topics) {
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [cloudwatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions,
      }),
    );
  }
}
