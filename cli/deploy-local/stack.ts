import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeRuleCommand,
  EventBridgeClient,
  ListRulesCommand,
  ListTargetsByRuleCommand,
} from '@aws-sdk/client-eventbridge';
import {
  GetFunctionCommand,
  GetFunctionEventInvokeConfigCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
  ListFunctionsCommand,
} from '@aws-sdk/client-lambda';
import {
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsCommand,
  ListTopicsCommand,
  paginateListSubscriptionsByTopic,
  SNSClient,
} from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ACCOUNT, REGION } from './moto';

/** One resource CloudFormation lists for the stack. */
export interface StackResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId: string;
}

export interface DeployedFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly runtime?: string;
  readonly handler?: string;
  readonly architectures: readonly string[];
  readonly memoryMb?: number;
  readonly timeoutS?: number;
  readonly reservedConcurrency?: number;
  readonly environment: Readonly<Record<string, string>>;
  /** Where the deployed code is: the bucket the template names, and the key Lambda reports. */
  readonly codeBucket?: string;
  readonly codeKey?: string;
  readonly eventInvokeConfig?: {
    readonly maximumRetryAttempts?: number;
    readonly maximumEventAgeInSeconds?: number;
    readonly onFailure?: string;
  };
  /** The stack's EventBridge rules that target the function. */
  readonly schedules: readonly {
    readonly rule: string;
    readonly expression?: string;
    readonly state?: string;
  }[];
  /** Event sources that invoke it (queues). */
  readonly eventSources: readonly { readonly arn: string; readonly batchSize?: number }[];
}

export interface DeployedSubscription {
  readonly arn: string;
  readonly protocol: string;
  readonly endpoint: string;
  /** The filter policy as SNS holds it (parsed JSON), absent without one. */
  readonly filterPolicy?: unknown;
  readonly filterPolicyScope?: string;
  readonly rawMessageDelivery: boolean;
}

export interface DeployedTopic {
  readonly logicalId: string;
  readonly arn: string;
  readonly kmsMasterKeyId?: string;
  readonly policy?: unknown;
  readonly subscriptions: readonly DeployedSubscription[];
}

export interface DeployedAlarm {
  readonly logicalId: string;
  readonly name: string;
  readonly description?: string;
  readonly namespace?: string;
  readonly metricName?: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly statistic?: string;
  readonly periodS?: number;
  readonly evaluationPeriods?: number;
  readonly threshold?: number;
  readonly comparison?: string;
  readonly treatMissingData?: string;
  readonly alarmActions: readonly string[];
  readonly okActions: readonly string[];
}

export interface DeployedTable {
  readonly logicalId: string;
  readonly name: string;
  readonly keys: readonly string[];
  readonly billingMode?: string;
  readonly ttl?: { readonly attribute?: string; readonly status?: string };
  readonly pointInTimeRecovery?: string;
  readonly sse?: string;
}

export interface DeployedLogGroup {
  readonly logicalId: string;
  readonly name: string;
  readonly retentionDays?: number;
}

export interface DeployedQueue {
  readonly logicalId: string;
  readonly url: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** What a deployed stack has, read from the services (never from the template). */
export interface DeployedStack {
  readonly name: string;
  readonly status: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** Every resource CloudFormation lists, of any type: the readers below cover some of them. */
  readonly resources: readonly StackResource[];
  /** Resource types of the deployed template that CloudFormation did not create (moto skips). */
  readonly notCreated: readonly { readonly logicalId: string; readonly type: string }[];
  readonly functions: readonly DeployedFunction[];
  readonly topics: readonly DeployedTopic[];
  readonly alarms: readonly DeployedAlarm[];
  readonly tables: readonly DeployedTable[];
  readonly queues: readonly DeployedQueue[];
  readonly logGroups: readonly DeployedLogGroup[];
}

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

/** The clients the readers use; built from the environment (`AWS_ENDPOINT_URL`, region). */
class Clients {
  readonly cloudformation = new CloudFormationClient({});
  readonly lambda = new LambdaClient({});
  readonly events = new EventBridgeClient({});
  readonly sns = new SNSClient({});
  // moto's CloudFormation names a queue by its AWS URL: send to the endpoint, not that host.
  readonly sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  readonly dynamodb = new DynamoDBClient({});
  readonly cloudwatch = new CloudWatchClient({});
  readonly logs = new CloudWatchLogsClient({});

  destroy(): void {
    for (const client of Object.values(this)) (client as { destroy(): void }).destroy();
  }
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
    };
  } finally {
    clients.destroy();
  }
}

/**
 * What exists in the account and region, stack or not, of the kinds the stack makes (by name or
 * ARN, sorted): what `cdk destroy` left behind. The bootstrap stack makes none of these kinds.
 */
export async function accountInventory(): Promise<Record<string, string[]>> {
  const clients = new Clients();
  try {
    const sorted = (names: (string | undefined)[]) =>
      names.filter((n): n is string => n !== undefined).sort();
    const [topics, subscriptions, functions, tables, queues, alarms, logGroups, rules] =
      await Promise.all([
        clients.sns.send(new ListTopicsCommand({})).then((r) => r.Topics?.map((t) => t.TopicArn)),
        clients.sns
          .send(new ListSubscriptionsCommand({}))
          .then((r) => r.Subscriptions?.map((s) => s.SubscriptionArn)),
        clients.lambda
          .send(new ListFunctionsCommand({}))
          .then((r) => r.Functions?.map((f) => f.FunctionName)),
        clients.dynamodb.send(new ListTablesCommand({})).then((r) => r.TableNames),
        clients.sqs.send(new ListQueuesCommand({})).then((r) => r.QueueUrls),
        clients.cloudwatch
          .send(new DescribeAlarmsCommand({}))
          .then((r) => r.MetricAlarms?.map((a) => a.AlarmName)),
        clients.logs
          .send(new DescribeLogGroupsCommand({}))
          .then((r) => r.logGroups?.map((g) => g.logGroupName)),
        clients.events.send(new ListRulesCommand({})).then((r) => r.Rules?.map((x) => x.Name)),
      ]);
    return {
      topics: sorted(topics ?? []),
      subscriptions: sorted(subscriptions ?? []),
      functions: sorted(functions ?? []),
      tables: sorted(tables ?? []),
      queues: sorted(queues ?? []),
      alarms: sorted(alarms ?? []),
      logGroups: sorted(logGroups ?? []),
      rules: sorted(rules ?? []),
    };
  } finally {
    clients.destroy();
  }
}
