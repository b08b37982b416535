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
  /** Event sources that invoke it (a queue, the state table's stream). */
  readonly eventSources: readonly DeployedEventSource[];
}

/** An event source mapping: what invokes a function from a queue or a stream. */
export interface DeployedEventSource {
  readonly arn: string;
  readonly batchSize?: number;
  /** A stream's: where reading starts (`LATEST`, `TRIM_HORIZON`). */
  readonly startingPosition?: string;
  /** The filter patterns (Lambda's event filtering), parsed; absent without a filter. */
  readonly filters?: readonly unknown[];
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
  /** Whether `DeleteTable` is refused until it is turned off. */
  readonly deletionProtection: boolean;
  /** The table's stream, when it has one: its ARN and what its records carry (`KEYS_ONLY`). */
  readonly streamArn?: string;
  readonly streamViewType?: string;
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
  /** Chat channels the stack would post to. */
  readonly chats: readonly DeployedChat[];
}

/**
 * A Slack or Teams channel configuration of the stack, as its template declares it (moto has
 * no chat service: it keeps the declaration and posts nothing).
 */
export interface DeployedChat {
  readonly logicalId: string;
  readonly kind: 'Slack' | 'Microsoft Teams';
  /** Where it posts: the workspace and channel, or the tenant, team and channel. */
  readonly where: string;
  /** The topics it is subscribed to (ARNs). */
  readonly topics: readonly string[];
  /** The buttons it puts on telealert's messages (their action names). */
  readonly buttons: readonly string[];
}
