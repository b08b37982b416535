import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DescribeRuleCommand, ListTargetsByRuleCommand } from '@aws-sdk/client-eventbridge';
import {
  GetFunctionCommand,
  GetFunctionEventInvokeConfigCommand,
  ListEventSourceMappingsCommand,
} from '@aws-sdk/client-lambda';
import {
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  paginateListSubscriptionsByTopic,
} from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { readChats } from './chat';
import { Clients } from './clients';
import { ACCOUNT, REGION } from './moto';
import type {
  DeployedAlarm,
  DeployedFunction,
  DeployedLogGroup,
  DeployedQueue,
  DeployedStack,
  DeployedSubscription,
  DeployedTable,
  DeployedTopic,
  StackResource,
} from './types';

export type * from './types';

const parseJson = (text: string | undefined): unknown =>
  text === undefined || text === '' ? undefined : JSON.parse(text);

/**
 * The bucket of a function's `Code` in the deployed template: a name, or the CDK's
 * `Fn::Sub` of the bootstrap bucket with the account and region (moto's CloudFormation gives the
 * bootstrap stack no outputs to read it from).
 */
function codeBucket(code: unknown): string | undefined {
  const bucket = (code as { S3Bucket?: unknown } | undefined)?.S3Bucket;
  if (typeof bucket === 'string') return bucket;
  const sub = (bucket as { 'Fn::Sub'?: unknown } | undefined)?.['Fn::Sub'];
  if (typeof sub !== 'string') return undefined;
  const pseudo: Record<string, string> = { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION };
  return sub.replace(/\$\{([A-Za-z:]+)\}/g, (whole, name: string) => pseudo[name] ?? whole);
}

/** A stack's outputs by key, or undefined when the stack does not exist. */
export async function stackOutputs(name: string): Promise<Record<string, string> | undefined> {
  const client = new CloudFormationClient({});
  try {
    const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: name }));
    const [stack] = Stacks;
    if (!stack) return undefined;
    return Object.fromEntries(
      (stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
    );
  } catch (error) {
    if ((error as Error).name === 'ValidationError') return undefined;
    throw error;
  } finally {
    client.destroy();
  }
}

/**
 * Reads the deployed stack: CloudFormation's list of its resources, then each function, rule,
 * topic (with its subscriptions), alarm, table and queue from its own service. A resource of
 * another type is listed in `resources` only.
 */
export async function readDeployedStack(name: string): Promise<DeployedStack> {
  const clients = new Clients();
  try {
    const { Stacks = [] } = await clients.cloudformation.send(
      new DescribeStacksCommand({ StackName: name }),
    );
    const [stack] = Stacks;
    if (!stack) throw new Error(`stack ${name} does not exist`);
    const resources: StackResource[] = [];
    for await (const page of paginateListStackResources(
      { client: clients.cloudformation },
      { StackName: name },
    )) {
      for (const r of page.StackResourceSummaries ?? []) {
        // moto lists a resource its CloudFormation did not create as one with no id or type.
        if (!r.LogicalResourceId || !r.ResourceType) continue;
        resources.push({
          logicalId: r.LogicalResourceId ?? '',
          type: r.ResourceType ?? '',
          physicalId: r.PhysicalResourceId ?? '',
        });
      }
    }
    const { TemplateBody = '{}' } = await clients.cloudformation.send(
      new GetTemplateCommand({ StackName: name }),
    );
    const template = JSON.parse(TemplateBody) as {
      Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    const created = new Set(resources.map((r) => r.logicalId));
    const notCreated = Object.entries(template.Resources ?? {})
      .filter(([id]) => !created.has(id))
      .map(([logicalId, r]) => ({ logicalId, type: r.Type }));
    const ofType = (type: string) => resources.filter((r) => r.type === type);

    const schedules = await Promise.all(
      ofType('AWS::Events::Rule').map(async (r) => {
        const rule = await clients.events.send(new DescribeRuleCommand({ Name: r.physicalId }));
        const { Targets = [] } = await clients.events.send(
          new ListTargetsByRuleCommand({ Rule: r.physicalId }),
        );
        return {
          rule: r.physicalId,
          expression: rule.ScheduleExpression,
          state: rule.State,
          targets: Targets.map((t) => t.Arn ?? ''),
        };
      }),
    );

    const functions = await Promise.all(
      ofType('AWS::Lambda::Function').map(async (r): Promise<DeployedFunction> => {
        const fn = await clients.lambda.send(
          new GetFunctionCommand({ FunctionName: r.physicalId }),
        );
        const c = fn.Configuration ?? {};
        const arn = c.FunctionArn ?? '';
        const invokeConfig = await clients.lambda
          .send(new GetFunctionEventInvokeConfigCommand({ FunctionName: r.physicalId }))
          .catch((error: Error) => {
            if (error.name === 'ResourceNotFoundException') return undefined;
            throw error;
          });
        const { EventSourceMappings = [] } = await clients.lambda.send(
          new ListEventSourceMappingsCommand({ FunctionName: r.physicalId }),
        );
        return {
          logicalId: r.logicalId,
          name: c.FunctionName ?? r.physicalId,
          arn,
          runtime: c.Runtime,
          handler: c.Handler,
          architectures: c.Architectures ?? [],
          memoryMb: c.MemorySize,
          timeoutS: c.Timeout,
          reservedConcurrency: fn.Concurrency?.ReservedConcurrentExecutions,
          environment: c.Environment?.Variables ?? {},
          codeBucket: codeBucket(template.Resources?.[r.logicalId]?.Properties?.Code),
          codeKey: fn.Code?.Location?.split('/').slice(3).join('/'),
          eventInvokeConfig: invokeConfig && {
            maximumRetryAttempts: invokeConfig.MaximumRetryAttempts,
            maximumEventAgeInSeconds: invokeConfig.MaximumEventAgeInSeconds,
            onFailure: invokeConfig.DestinationConfig?.OnFailure?.Destination,
          },
          schedules: schedules
            .filter((s) => s.targets.includes(arn))
            .map(({ rule, expression, state }) => ({ rule, expression, state })),
          eventSources: EventSourceMappings.map((m) => ({
            arn: m.EventSourceArn ?? '',
            batchSize: m.BatchSize,
            ...(m.StartingPosition ? { startingPosition: m.StartingPosition } : {}),
            ...(m.FilterCriteria?.Filters
              ? {
                  filters: m.FilterCriteria.Filters.map((f) => JSON.parse(f.Pattern ?? '{}')),
                }
              : {}),
          })),
        };
      }),
    );

    const topics = await Promise.all(
      ofType('AWS::SNS::Topic').map(async (r): Promise<DeployedTopic> => {
        const { Attributes = {} } = await clients.sns.send(
          new GetTopicAttributesCommand({ TopicArn: r.physicalId }),
        );
        const subscriptions: DeployedSubscription[] = [];
        for await (const page of paginateListSubscriptionsByTopic(
          { client: clients.sns },
          { TopicArn: r.physicalId },
        )) {
          for (const s of page.Subscriptions ?? []) {
            const { Attributes: a = {} } = await clients.sns.send(
              new GetSubscriptionAttributesCommand({ SubscriptionArn: s.SubscriptionArn }),
            );
            subscriptions.push({
              arn: s.SubscriptionArn ?? '',
              protocol: s.Protocol ?? '',
              endpoint: s.Endpoint ?? '',
              filterPolicy: parseJson(a.FilterPolicy),
              filterPolicyScope: a.FilterPolicy ? a.FilterPolicyScope : undefined,
              rawMessageDelivery: a.RawMessageDelivery === 'true',
            });
          }
        }
        return {
          logicalId: r.logicalId,
          arn: r.physicalId,
          kmsMasterKeyId: Attributes.KmsMasterKeyId,
          policy: parseJson(Attributes.Policy),
          subscriptions,
        };
      }),
    );

    const alarmIds = new Map(
      ofType('AWS::CloudWatch::Alarm').map((r) => [r.physicalId, r.logicalId]),
    );
    const alarms: DeployedAlarm[] = [];
    if (alarmIds.size > 0) {
      const { MetricAlarms = [] } = await clients.cloudwatch.send(
        new DescribeAlarmsCommand({ AlarmNames: [...alarmIds.keys()] }),
      );
      for (const a of MetricAlarms) {
        alarms.push({
          logicalId: alarmIds.get(a.AlarmName ?? '') ?? '',
          name: a.AlarmName ?? '',
          description: a.AlarmDescription,
          namespace: a.Namespace,
          metricName: a.MetricName,
          dimensions: Object.fromEntries((a.Dimensions ?? []).map((d) => [d.Name, d.Value])),
          statistic: a.Statistic,
          periodS: a.Period,
          evaluationPeriods: a.EvaluationPeriods,
          threshold: a.Threshold,
          comparison: a.ComparisonOperator,
          treatMissingData: a.TreatMissingData,
          alarmActions: a.AlarmActions ?? [],
          okActions: a.OKActions ?? [],
        });
      }
    }

    const tables = await Promise.all(
      ofType('AWS::DynamoDB::Table').map(async (r): Promise<DeployedTable> => {
        const { Table: t = {} } = await clients.dynamodb.send(
          new DescribeTableCommand({ TableName: r.physicalId }),
        );
        const { TimeToLiveDescription: ttl } = await clients.dynamodb.send(
          new DescribeTimeToLiveCommand({ TableName: r.physicalId }),
        );
        const { ContinuousBackupsDescription: backups } = await clients.dynamodb.send(
          new DescribeContinuousBackupsCommand({ TableName: r.physicalId }),
        );
        return {
          logicalId: r.logicalId,
          name: r.physicalId,
          keys: (t.KeySchema ?? []).map((k) => `${k.AttributeName} (${k.KeyType})`),
          billingMode: t.BillingModeSummary?.BillingMode,
          ttl: ttl && { attribute: ttl.AttributeName, status: ttl.TimeToLiveStatus },
          pointInTimeRecovery: backups?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus,
          sse: t.SSEDescription?.Status,
          deletionProtection: t.DeletionProtectionEnabled === true,
          ...(t.LatestStreamArn ? { streamArn: t.LatestStreamArn } : {}),
          ...(t.StreamSpecification?.StreamViewType
            ? { streamViewType: t.StreamSpecification.StreamViewType }
            : {}),
        };
      }),
    );

    const queues = await Promise.all(
      ofType('AWS::SQS::Queue').map(async (r): Promise<DeployedQueue> => {
        const { Attributes = {} } = await clients.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: r.physicalId, AttributeNames: ['All'] }),
        );
        return { logicalId: r.logicalId, url: r.physicalId, attributes: Attributes };
      }),
    );

    const logGroups = await Promise.all(
      ofType('AWS::Logs::LogGroup').map(async (r): Promise<DeployedLogGroup> => {
        const { logGroups: found = [] } = await clients.logs.send(
          new DescribeLogGroupsCommand({ logGroupNamePrefix: r.physicalId }),
        );
        const group = found.find((g) => g.logGroupName === r.physicalId);
        return {
          logicalId: r.logicalId,
          name: r.physicalId,
          retentionDays: group?.retentionInDays,
        };
      }),
    );

    return {
      name,
      status: stack.StackStatus ?? '',
      outputs: Object.fromEntries(
        (stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
      ),
      resources,
      notCreated,
      functions,
      topics,
      alarms,
      tables,
      queues,
      logGroups,
      chats: readChats(template.Resources ?? {}, resources),
    };
  } finally {
    clients.destroy();
  }
}
