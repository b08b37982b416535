import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AttributeType,
  BillingMode,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { chatChannelNames } from '../shared/config/chat-channels';
import { loadConfigFile } from '../shared/config/load';
import { readsSource, samplesPerRun } from '../shared/config/sources';
import { smsChannelNames } from '../shared/messages/sms-attributes';
import { type Config, SOURCES, type SourceName } from '../shared/types/config';
import { SelfMonitoring } from './alarms';
import { ChatChannels } from './chat';
import { TelealertDashboard } from './dashboard';
import { InvalidPropError } from './errors';
import { NotifierFunction } from './notifier';
import { allowCloudWatchAlarms, grantNotifierAccess, grantPollerAccess } from './permissions';
import { SourcePoller } from './poller';
import { ChannelTopic } from './topics';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface TelealertAlertingProps {
  /**
   * The rules file. Validated at synth with the same code `telealert validate` runs (a bad file
   * throws `ConfigError`) and copied into each function bundle as `telealert.yaml`.
   */
  readonly configFile: string;
  /**
   * Folder with the handler entries `live-calls.ts` and `payments.ts` (each exports `handler`).
   * @default `functions/` of this repository
   */
  readonly functionsDir?: string;
  /**
   * Root that esbuild bundles from; must contain `functionsDir` and `package-lock.json`.
   * @default this repository's root
   */
  readonly projectRoot?: string;
  /**
   * Bundle the AWS SDK v3 clients into each function instead of using the copy in the Lambda
   * runtime. Measured by `npm run bench` (2 cores, Node 24, 2026-11-21): bundled, 628 KB per
   * function, import 143-162 ms and import + first run 353-380 ms; external, 205 KB, import
   * 211-253 ms and first run 474-549 ms (resolving the SDK's many files from node_modules
   * costs more than parsing one minified file). Cold start wins over asset size, and the code
   * runs against the SDK version the tests ran against.
   * @default true
   */
  readonly bundleAwsSdk?: boolean;
  /**
   * Memory of each poller in MB. The sampling loop mostly waits on HTTP; 256 MB also buys the
   * CPU share that keeps JSON parsing and cold start short.
   * @default 256
   */
  readonly memorySize?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * What `cdk destroy` does to the state table. Retained by default: it holds which alerts are
   * firing and which notifications are still owed; losing it re-sends or drops them.
   * @default RemovalPolicy.RETAIN
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
  /**
   * ARN of the customer managed KMS key encrypting the token parameter, when it is not the
   * AWS managed `aws/ssm` key. The functions then get `kms:Decrypt` on that key, only via SSM.
   * @default the `aws/ssm` key, whose key policy already lets the account's principals decrypt
   * through SSM, so no KMS statement is added
   */
  readonly tokenKeyArn?: string;
  /**
   * Reserve a concurrency of 1 per poller, so at most one run per source is in flight. New
   * accounts with a total concurrency limit of 10 cannot reserve any: set `false` there; the
   * runtime's conditional writes still keep overlapping runs from double-sending.
   * @default true
   */
  readonly reserveConcurrency?: boolean;
}

/**
 * Telealert in one construct: per source a scheduled poller Lambda, per channel an encrypted
 * SNS topic with its subscriptions, the DynamoDB state table, a dead-letter queue for failed
 * runs, self-monitoring alarms to the `health.notify` channels and a dashboard.
 */
export class TelealertAlerting extends Construct {
  readonly config: Config;
  readonly topics: Readonly<Record<string, Topic>>;
  /**
   * Where the self-monitoring alarms go, per `health.notify` channel: its topic, or the second
   * topic of a channel with `minSeverity` (`ChannelTopic.alarmTopic`).
   */
  readonly alarmTopics: Readonly<Record<string, Topic>>;
  readonly table: Table;
  readonly deadLetterQueue: Queue;
  readonly key: Key;
  readonly pollers: Readonly<Partial<Record<SourceName, SourcePoller>>>;
  /** The notifier: alone, it sends; invoked by the table's stream on a poller's commit and every minute. */
  readonly notifier: NotifierFunction;
  /** Slack and Teams with their buttons; absent when no channel has chat. */
  readonly chat?: ChatChannels;
  readonly monitoring: SelfMonitoring;
  readonly dashboard: TelealertDashboard;

  constructor(scope: Construct, id: string, props: TelealertAlertingProps) {
    super(scope, id);
    const configFile = resolve(props.configFile);
    this.config = loadConfigFile(configFile);
    const memorySize = props.memorySize ?? 256;
    if (!Number.isInteger(memorySize) || memorySize < 128 || memorySize > 10_240) {
      throw new InvalidPropError('memorySize', 'must be a whole number of MB from 128 to 10240');
    }
    const projectRoot = resolve(props.projectRoot ?? REPO_ROOT);
    const depsLockFilePath = join(projectRoot, 'package-lock.json');
    if (!existsSync(depsLockFilePath)) {
      throw new InvalidPropError('projectRoot', `has no package-lock.json: ${projectRoot}`);
    }

    this.key = new Key(this, 'Key', {
      description: 'telealert: encrypts the SNS topics',
      enableKeyRotation: true,
      // Only in-flight SNS messages depend on it; the stack's topics go with it.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });

    const topics: Record<string, Topic> = {};
    const alarmTopics: Record<string, Topic> = {};
    const alarmed = new Set(this.config.health.notify);
    for (const [name, channel] of Object.entries(this.config.channels)) {
      const alarms = alarmed.has(name);
      const rotation =
        channel.rotation === undefined ? undefined : this.config.rotations?.[channel.rotation];
      const members = (rotation?.members ?? []).flatMap((member) => {
        const person = this.config.people?.[member];
        return person === undefined ? [] : [person];
      });
      const channelTopic = new ChannelTopic(this, `Channel-${name}`, {
        channel,
        key: this.key,
        alarms,
        ...(members.length > 0 ? { members } : {}),
      });
      topics[name] = channelTopic.topic;
      if (alarms) alarmTopics[name] = channelTopic.alarmTopic;
    }
    this.topics = topics;
    this.alarmTopics = alarmTopics;

    this.table = new Table(this, 'State', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiresAt',
      // The notifier is invoked when a poller commits (infra/notifier.ts): keys are all it reads.
      stream: StreamViewType.KEYS_ONLY,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.tableRemovalPolicy ?? RemovalPolicy.RETAIN,
      // Which alerts fire and what is owed: a `DeleteTable` by hand must be undone on purpose.
      deletionProtection: true,
    });

    // SQS-managed encryption: Lambda writes failed-run records with the function role, and an
    // SSE-SQS queue needs no KMS grant for that.
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    // Pollers only commit their events (no topics); the notifier takes them from the table and
    // decides the messages (grouping, the SMS cap, active hours) it publishes to the topics.
    const pollerEnvironment = { TELEALERT_TABLE: this.table.tableName };
    const notifierEnvironment = {
      ...pollerEnvironment,
      TELEALERT_TOPICS: topicsJson(this, topics),
    };
    // Every source has a poller, also one no rule reads (every rule of it removed): that one
    // asks the API nothing (no token) and only ends its removed rules' alerts (contract 6.1
    // rule 8). Only the sources rules read are watched (alarms, dashboard).
    const usedSources = SOURCES.filter((source) => readsSource(this.config, source));
    const pollers: Partial<Record<SourceName, SourcePoller>> = {};
    for (const source of SOURCES) {
      const reads = readsSource(this.config, source);
      // One role per poller: each may write only its own log group.
      const role = new Role(this, `Role-${source}`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `telealert ${source} poller: ${reads ? 'token, ' : ''}state table, own logs`,
      });
      grantPollerAccess(role, {
        ...(reads
          ? { token: { parameter: this.config.api.tokenParameter, keyArn: props.tokenKeyArn } }
          : {}),
        table: this.table,
      });
      const poller = new SourcePoller(this, `Poller-${source}`, {
        source,
        everyMs: this.config.sources[source].everyMs,
        samples: samplesPerRun(this.config, source),
        configFile,
        config: this.config,
        functionsDir: resolve(props.functionsDir ?? join(projectRoot, 'functions')),
        projectRoot,
        depsLockFilePath,
        role,
        environment: pollerEnvironment,
        deadLetterQueue: this.deadLetterQueue,
        memorySize,
        logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
        bundleAwsSdk: props.bundleAwsSdk ?? true,
        reserveConcurrency: props.reserveConcurrency ?? true,
      });
      poller.logGroup.grantWrite(role);
      pollers[source] = poller;
    }
    this.pollers = pollers;

    const notifierRole = new Role(this, 'Role-notifier', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'telealert notifier: state table and its stream, topics, own logs',
    });
    grantNotifierAccess(notifierRole, {
      table: this.table,
      topics: Object.values(topics),
      key: this.key,
    });
    this.notifier = new NotifierFunction(this, 'Notifier', {
      configFile,
      config: this.config,
      functionsDir: resolve(props.functionsDir ?? join(projectRoot, 'functions')),
      projectRoot,
      depsLockFilePath,
      role: notifierRole,
      // The stack's name goes into the commands a chat message gives (`--stack`).
      environment: { ...notifierEnvironment, TELEALERT_STACK: Stack.of(this).stackName },
      table: this.table,
      deadLetterQueue: this.deadLetterQueue,
      memorySize,
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
      bundleAwsSdk: props.bundleAwsSdk ?? true,
      reserveConcurrency: props.reserveConcurrency ?? true,
    });
    this.notifier.logGroup.grantWrite(notifierRole);

    if (chatChannelNames(this.config).size > 0) {
      this.chat = new ChatChannels(this, 'Chat', {
        configFile,
        config: this.config,
        functionsDir: resolve(props.functionsDir ?? join(projectRoot, 'functions')),
        projectRoot,
        depsLockFilePath,
        environment: { TELEALERT_TABLE: this.table.tableName },
        deadLetterQueue: this.deadLetterQueue,
        memorySize,
        logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
        bundleAwsSdk: props.bundleAwsSdk ?? true,
        reserveConcurrency: false,
        topics,
        table: this.table,
      });
    }

    const watched = usedSources.map((source) => ({
      source,
      everyMs: this.config.sources[source].everyMs,
      fn: (pollers[source] as SourcePoller).function,
    }));
    const onCall = this.config.health.notify.map((name) => {
      const topic = alarmTopics[name];
      if (!topic) throw new InvalidPropError('health.notify', `no channel named ${name}`);
      return topic;
    });
    allowCloudWatchAlarms(this.key, onCall);
    const smsChannels = smsChannelNames(this.config);
    const sms =
      smsChannels.length === 0
        ? undefined
        : {
            monthlyBudgetUsd: this.config.sms?.monthlyBudgetUsd ?? 1,
            topics: Object.fromEntries(smsChannels.map((name) => [name, topics[name] as Topic])),
          };
    this.monitoring = new SelfMonitoring(this, 'Monitoring', {
      pollers: watched,
      deadLetterQueue: this.deadLetterQueue,
      notifier: this.notifier.function,
      deadMansSwitchPeriods: this.config.health.after,
      actions: onCall.map((topic) => new SnsAction(topic)),
      sms,
    });
    this.dashboard = new TelealertDashboard(this, 'Dashboard', {
      pollers: watched.map((watching) => ({
        ...watching,
        logGroup: (pollers[watching.source] as SourcePoller).logGroup,
      })),
      deadLetterQueue: this.deadLetterQueue,
      sampleQueue: pollers.live_calls?.sampleQueue !== undefined,
      sms,
      notifier: { fn: this.notifier.function, logGroup: this.notifier.logGroup },
      ...(Object.values(this.config.channels).some((channel) => channel.rotation !== undefined)
        ? { rotations: true }
        : {}),
    });
  }
}

/** `TELEALERT_TOPICS`: channel name -> topic ARN, as JSON (tokens resolve at deploy). */
function topicsJson(scope: Construct, topics: Record<string, Topic>): string {
  const arns = Object.fromEntries(Object.entries(topics).map(([name, t]) => [name, t.topicArn]));
  return Stack.of(scope).toJsonString(arns);
}
