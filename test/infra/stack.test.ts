import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { NOTIFIER_STREAM_FILTER } from '../../infra/notifier';
import type { TelealertStack } from '../../infra/stack';
import {
  CONFIG_DIGEST_IDENTIFIER,
  EMBEDDED_CONFIG_FILE,
  embedConfig,
} from '../../shared/config/embedded';
import { loadConfigFile } from '../../shared/config/load';
import { CALL_STATES, METRIC_INVENTORY } from '../../shared/observability/metrics';
import {
  CREDENTIALS_STUB_MARK,
  iamStatements,
  SHIPPED_CONFIG,
  stripAssetHashes,
  synthStack,
} from './helpers';

let stack: TelealertStack;
let template: Template;
let assemblyDir: string;

/** The template's form of a token (a Ref or GetAtt), for exact comparisons. */
const ref = (value: string): unknown => stack.resolve(value);

beforeAll(() => {
  const synth = synthStack(SHIPPED_CONFIG, {}, { bundle: true });
  stack = synth.stack;
  template = synth.template;
  assemblyDir = synth.app.synth().directory;
  // esbuild runs once per function through npx: seconds, not milliseconds.
}, 120_000);

function pollerFunction(source: 'live_calls' | 'payments') {
  const poller = stack.alerting.pollers[source];
  if (!poller) throw new Error(`no poller for ${source}`);
  return poller.function;
}

// biome-ignore lint/suspicious/noExplicitAny: template JSON is untyped; tests read known paths.
function functionProps(source: 'live_calls' | 'payments'): any {
  const id = stack.getLogicalId(pollerFunction(source).node.defaultChild as CfnElement);
  return template.toJSON().Resources[id].Properties;
}

describe('Construct: TelealertAlerting', () => {
  describe('pollers', () => {
    it('runs one arm64 nodejs24.x function per source that rules use, and the notifier', () => {
      template.resourceCountIs('AWS::Lambda::Function', 3);
      template.allResourcesProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 256,
        Handler: 'index.handler',
      });
    });

    it('sizes the timeout to the period minus a margin', () => {
      expect(functionProps('live_calls').Timeout).toBe(55);
      expect(functionProps('payments').Timeout).toBe(295);
    });

    it('passes the table, source maps, the malloc threshold and the Powertools settings in the environment, and the topics to the notifier only', () => {
      template.allResourcesProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            TELEALERT_TABLE: ref(stack.alerting.table.tableName),
            NODE_OPTIONS: '--enable-source-maps',
            MALLOC_MMAP_THRESHOLD_: '32768',
            POWERTOOLS_SERVICE_NAME: 'telealert',
            POWERTOOLS_METRICS_NAMESPACE: 'Telealert',
          }),
        },
      });
      for (const source of ['live_calls', 'payments'] as const) {
        expect(Object.keys(functionProps(source).Environment.Variables).sort()).toEqual(
          [
            'MALLOC_MMAP_THRESHOLD_',
            'NODE_OPTIONS',
            'POWERTOOLS_METRICS_NAMESPACE',
            'POWERTOOLS_SERVICE_NAME',
            'TELEALERT_TABLE',
            ...(source === 'live_calls' ? ['TELEALERT_SAMPLE_QUEUE_URL'] : []),
          ].sort(),
        );
      }
      const notifier = stack.getLogicalId(
        stack.alerting.notifier.function.node.defaultChild as CfnElement,
      );
      const { oncall, finance } = stack.alerting.topics;
      expect(
        template.toJSON().Resources[notifier].Properties.Environment.Variables.TELEALERT_TOPICS,
      ).toEqual({
        'Fn::Join': [
          '',
          [
            '{"oncall":"',
            ref(oncall?.topicArn ?? ''),
            '","finance":"',
            ref(finance?.topicArn ?? ''),
            '"}',
          ],
        ],
      });
    });

    it('schedules each source at its every', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: ref(pollerFunction('live_calls').functionArn) })],
      });
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(5 minutes)',
        Targets: [Match.objectLike({ Arn: ref(pollerFunction('payments').functionArn) })],
      });
    });

    it('brings the later live-calls samples back through an encrypted delay queue that invokes the poller', () => {
      const queue = stack.alerting.pollers.live_calls?.sampleQueue;
      expect(queue).toBeDefined();
      expect(stack.alerting.pollers.payments?.sampleQueue).toBeUndefined();
      const arn = ref(queue?.queueArn ?? '');
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        // At least the function's 55 s timeout, as Lambda requires of an event source.
        VisibilityTimeout: 60,
        RedrivePolicy: {
          deadLetterTargetArn: ref(stack.alerting.deadLetterQueue.queueArn),
          maxReceiveCount: 5,
        },
      });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: arn,
        FunctionName: ref(pollerFunction('live_calls').functionName),
        BatchSize: 1,
      });
      const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
      const onPoller = mappings.filter(
        (m) =>
          JSON.stringify(m.Properties.FunctionName) ===
          JSON.stringify(ref(pollerFunction('live_calls').functionName)),
      );
      expect(onPoller).toHaveLength(1);
      expect(functionProps('live_calls').Environment.Variables.TELEALERT_SAMPLE_QUEUE_URL).toEqual(
        ref(queue?.queueUrl ?? ''),
      );
      expect(functionProps('payments').Environment.Variables).not.toHaveProperty(
        'TELEALERT_SAMPLE_QUEUE_URL',
      );
    });

    it('allows one run per source at a time, no retries, stale events to the dead-letter queue', () => {
      template.allResourcesProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1 });
      const dlq = ref(stack.alerting.deadLetterQueue.queueArn);
      for (const [source, age] of [
        ['live_calls', 60],
        ['payments', 300],
      ] as const) {
        template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
          FunctionName: ref(pollerFunction(source).functionName),
          MaximumRetryAttempts: 0,
          MaximumEventAgeInSeconds: age,
          DestinationConfig: { OnFailure: { Destination: dlq } },
        });
      }
    });

    it('keeps the log groups for a limited time', () => {
      template.resourceCountIs('AWS::Logs::LogGroup', 3);
      template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('bundles minified ESM with a source map and the validated rules file beside it', () => {
      const assets = readdirSync(assemblyDir).filter((name) => name.startsWith('asset.'));
      expect(assets).toHaveLength(3);
      const rules = readFileSync(SHIPPED_CONFIG, 'utf8');
      for (const asset of assets) {
        const dir = join(assemblyDir, asset);
        expect(existsSync(join(dir, 'index.mjs'))).toBe(true);
        expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
        expect(readFileSync(join(dir, 'telealert.yaml'), 'utf8')).toBe(rules);
      }
    });

    it('ships the validated config beside each handler, its digest in the bundle', () => {
      const assets = readdirSync(assemblyDir).filter((name) => name.startsWith('asset.'));
      const { text, digest } = embedConfig(
        loadConfigFile(SHIPPED_CONFIG),
        // Synth ships the zone's offsets around its own year.
        new Date().getUTCFullYear(),
      );
      for (const asset of assets) {
        const dir = join(assemblyDir, asset);
        expect(readFileSync(join(dir, EMBEDDED_CONFIG_FILE), 'utf8')).toBe(text);
        expect(existsSync(join(dir, 'telealert.json'))).toBe(false);
        const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
        expect(code).toContain(JSON.stringify(digest));
        expect(code).not.toContain(CONFIG_DIGEST_IDENTIFIER);
      }
    });

    it('swaps the SDK credential chain for the environment-only provider in each bundle', () => {
      const assets = readdirSync(assemblyDir).filter((name) => name.startsWith('asset.'));
      expect(assets).toHaveLength(3);
      for (const asset of assets) {
        const code = readFileSync(join(assemblyDir, asset, 'index.mjs'), 'utf8');
        expect(code).toContain(CREDENTIALS_STUB_MARK);
      }
    });

    it('loads node:http with require in each bundle, never as an ES module', () => {
      const assets = readdirSync(assemblyDir).filter((name) => name.startsWith('asset.'));
      for (const asset of assets) {
        const code = readFileSync(join(assemblyDir, asset, 'index.mjs'), 'utf8');
        // createRequire(import.meta.url)("node:http"), minified.
        expect(code).toMatch(/\)\("node:http"\)/);
        expect(code).not.toMatch(/import\s*\(\s*"node:http"\s*\)|from\s*"node:http"/);
      }
    });
  });

  describe('permissions', () => {
    /** The live calls poller queues its later samples and is invoked by that queue. */
    const sampleQueueStatements = (queueArn: string | undefined) =>
      queueArn === undefined
        ? []
        : [
            {
              Effect: 'Allow',
              Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
              Resource: ref(queueArn),
            },
            {
              Effect: 'Allow',
              Action: [
                'sqs:ReceiveMessage',
                'sqs:ChangeMessageVisibility',
                'sqs:GetQueueUrl',
                'sqs:DeleteMessage',
                'sqs:GetQueueAttributes',
              ],
              Resource: ref(queueArn),
            },
          ];

    it('grants each poller exactly the token, the table, the DLQ, its sample queue and its logs: no topic', () => {
      for (const source of ['live_calls', 'payments'] as const) {
        const poller = stack.alerting.pollers[source];
        template.hasResourceProperties('AWS::IAM::Policy', {
          Roles: [ref(pollerFunction(source).role?.roleName ?? '')],
          PolicyDocument: {
            Statement: [
              {
                Sid: 'ReadApiToken',
                Effect: 'Allow',
                Action: 'ssm:GetParameter',
                Resource: {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':ssm:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':parameter/telealert/api-token',
                    ],
                  ],
                },
              },
              {
                Sid: 'StateTable',
                Effect: 'Allow',
                Action: ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
                Resource: ref(stack.alerting.table.tableArn),
              },
              {
                Effect: 'Allow',
                Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
                Resource: ref(stack.alerting.deadLetterQueue.queueArn),
              },
              ...sampleQueueStatements(poller?.sampleQueue?.queueArn),
              {
                Effect: 'Allow',
                Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                Resource: ref(poller?.logGroup.logGroupArn ?? ''),
              },
            ],
          },
        });
      }
    });

    it("uses no wildcard resource but the stream grant's ListStreams, and no managed policy", () => {
      const statements = iamStatements(template);
      expect(statements.length).toBeGreaterThan(0);
      const wildcards = statements.filter((statement) =>
        JSON.stringify(statement.Resource).includes('*'),
      );
      // Table.grantStreamRead's, acknowledged in infra/nag.ts: it lists stream ARNs only.
      expect(wildcards).toEqual([
        { Action: 'dynamodb:ListStreams', Effect: 'Allow', Resource: '*' },
      ]);
      template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
    });

    it('adds no kms:Decrypt for the aws/ssm key, whose key policy already allows it via SSM', () => {
      const actions = iamStatements(template).flatMap((s) => [s.Action].flat());
      expect(actions).not.toContain('kms:Decrypt*');
      expect(iamStatements(template).filter((s) => s.Sid === 'DecryptApiTokenViaSsm')).toEqual([]);
    });
  });

  describe('encryption', () => {
    it('encrypts every topic with a rotating customer managed key that CloudWatch alarms may use', () => {
      template.allResourcesProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: ref(stack.alerting.key.keyArn),
      });
      template.hasResourceProperties('AWS::KMS::Key', {
        EnableKeyRotation: true,
        KeyPolicy: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
              Condition: Match.objectLike({
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              }),
            }),
          ]),
        },
      });
    });

    it('denies plain HTTP on every topic and on the queue', () => {
      const denyInsecure = Match.objectLike({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
      template.resourceCountIs('AWS::SNS::TopicPolicy', 3);
      template.allResourcesProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: { Statement: Match.arrayWith([denyInsecure]) },
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: { Statement: Match.arrayWith([denyInsecure]) },
      });
    });

    it('keeps state in an encrypted on-demand table with TTL, point-in-time recovery and deletion protection', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        Properties: {
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
          TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          DeletionProtectionEnabled: true,
        },
      });
    });

    it('encrypts the dead-letter queue', () => {
      template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    });
  });

  describe('notifier', () => {
    it('has the pollers leave their events to the notifier, with no way to publish or mark them sent', () => {
      for (const source of ['live_calls', 'payments'] as const) {
        expect(functionProps(source).Environment.Variables).not.toHaveProperty('TELEALERT_TOPICS');
        const role = stack.getLogicalId(
          pollerFunction(source).role?.node.defaultChild as CfnElement,
        );
        const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter(
          (policy) => JSON.stringify(policy.Properties.Roles).includes(role),
        );
        expect(JSON.stringify(policies)).not.toContain('sns:Publish');
        expect(JSON.stringify(policies)).not.toContain('dynamodb:BatchWriteItem');
      }
    });

    it("is invoked by the table's stream when a source's state item is written, keys only", () => {
      const fn = stack.alerting.notifier.function;
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
      });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: ref(fn.functionName),
        EventSourceArn: { 'Fn::GetAtt': [Match.anyValue(), 'StreamArn'] },
        StartingPosition: 'LATEST',
        MaximumRetryAttempts: 1,
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify(NOTIFIER_STREAM_FILTER) }] },
      });
      expect(NOTIFIER_STREAM_FILTER).toEqual({
        dynamodb: { Keys: { pk: { S: ['live_calls', 'payments'] }, sk: { S: ['state'] } } },
      });
    });

    it('runs the notifier every minute, one at a time, with the table and topics but no token', () => {
      const fn = stack.alerting.notifier.function;
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: ref(fn.functionArn) })],
      });
      const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
      const props = template.toJSON().Resources[id].Properties;
      expect(props.ReservedConcurrentExecutions).toBe(1);
      expect(props.Environment.Variables).toHaveProperty('TELEALERT_TOPICS');
      const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnElement);
      const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify(policy.Properties.Roles).includes(role),
      );
      const actions = JSON.stringify(policies.map((policy) => policy.Properties.PolicyDocument));
      expect(actions).toContain('sns:Publish');
      expect(actions).toContain('dynamodb:BatchWriteItem');
      expect(actions).not.toContain('ssm:GetParameter');
    });
  });

  describe('subscriptions', () => {
    it('subscribes every email and SMS endpoint of each channel to its topic', () => {
      const { oncall, finance } = stack.alerting.topics;
      const alarms = stack.alerting.alarmTopics.oncall;
      const expected = [
        [oncall, 'email', 'oncall@example.com'],
        [oncall, 'sms', '+12025550100'],
        // The rotation's members: asha and ravi, each by SMS and email.
        [oncall, 'sms', '+12025550101'],
        [oncall, 'email', 'asha@example.com'],
        [oncall, 'sms', '+12025550102'],
        [oncall, 'email', 'ravi@example.com'],
        [finance, 'email', 'finance@example.com'],
        [finance, 'email', 'payments-team@example.com'],
        [alarms, 'email', 'oncall@example.com'],
        [alarms, 'sms', '+12025550100'],
        [alarms, 'email', 'asha@example.com'],
        [alarms, 'email', 'ravi@example.com'],
      ] as const;
      template.resourceCountIs('AWS::SNS::Subscription', expected.length);
      for (const [topic, protocol, endpoint] of expected) {
        template.hasResourceProperties('AWS::SNS::Subscription', {
          TopicArn: ref(topic?.topicArn ?? ''),
          Protocol: protocol,
          Endpoint: endpoint,
        });
      }
    });

    it('filters a minSeverity channel on severity with an allowlist of that severity and above, but for an ack confirmation to the number itself', () => {
      // The fixed lists beside the shipped rotation hear every page, not the handoffs.
      const notHandoffs = { kind: [{ 'anything-but': ['handoff'] }] };
      template.hasResourceProperties('AWS::SNS::Subscription', {
        TopicArn: ref(stack.alerting.topics.oncall?.topicArn ?? ''),
        Endpoint: '+12025550100',
        FilterPolicy: Match.exact({
          sms: ['yes'],
          $or: [
            { to: ['+12025550100'] },
            { to: [{ exists: false }], severity: ['warning', 'critical'], ...notHandoffs },
          ],
        }),
      });
      template.hasResourceProperties('AWS::SNS::Subscription', {
        TopicArn: ref(stack.alerting.topics.oncall?.topicArn ?? ''),
        Endpoint: 'oncall@example.com',
        FilterPolicy: Match.exact({ severity: ['warning', 'critical'], ...notHandoffs }),
      });
      // A member: their name on call, and the severity filter except for their handoff and
      // the confirmation of their own ack call.
      template.hasResourceProperties('AWS::SNS::Subscription', {
        TopicArn: ref(stack.alerting.topics.oncall?.topicArn ?? ''),
        Endpoint: '+12025550102',
        FilterPolicy: Match.exact({
          oncall: ['ravi'],
          $or: [{ kind: ['handoff', 'ack'] }, { severity: ['warning', 'critical'] }],
          sms: ['yes'],
        }),
      });
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Endpoint: 'finance@example.com',
        FilterPolicy: Match.absent(),
      });
    });

    it('sends alarms to a filtered on-call channel through a second topic without a filter policy', () => {
      // CloudWatch alarm notifications carry no message attributes: SNS drops them for every
      // subscription with a filter policy, even one that allows a missing `severity`.
      const alarms = stack.alerting.alarmTopics.oncall;
      expect(alarms).toBeDefined();
      expect(alarms).not.toBe(stack.alerting.topics.oncall);
      for (const endpoint of ['+12025550100', 'oncall@example.com']) {
        template.hasResourceProperties('AWS::SNS::Subscription', {
          TopicArn: ref(alarms?.topicArn ?? ''),
          Endpoint: endpoint,
          FilterPolicy: Match.absent(),
        });
      }
      template.hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: ref(stack.alerting.key.keyArn),
      });
    });
  });

  describe('self-monitoring', () => {
    it('has a dead-man switch per source on PollSucceeded that treats missing data as breaching', () => {
      const oncall = ref(stack.alerting.alarmTopics.oncall?.topicArn ?? '');
      for (const [source, period] of [
        ['live_calls', 60],
        ['payments', 300],
      ] as const) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'Telealert',
          MetricName: 'PollSucceeded',
          Dimensions: Match.arrayWith([{ Name: 'source', Value: source }]),
          Statistic: 'Sum',
          Period: period,
          Threshold: 1,
          ComparisonOperator: 'LessThanThreshold',
          EvaluationPeriods: 3,
          TreatMissingData: 'breaching',
          AlarmActions: [oncall],
          OKActions: [oncall],
        });
      }
    });

    it('alarms on function errors and throttles and on a non-empty dead-letter queue', () => {
      // 9, and SMS spend and failed deliveries: the shipped oncall channel has an SMS subscriber.
      template.resourceCountIs('AWS::CloudWatch::Alarm', 11);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [
          { Name: 'FunctionName', Value: ref(stack.alerting.notifier.function.functionName) },
        ],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
      });
      for (const metric of ['Errors', 'Throttles']) {
        for (const source of ['live_calls', 'payments'] as const) {
          template.hasResourceProperties('AWS::CloudWatch::Alarm', {
            Namespace: 'AWS/Lambda',
            MetricName: metric,
            Dimensions: [{ Name: 'FunctionName', Value: ref(pollerFunction(source).functionName) }],
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            Threshold: 1,
          });
        }
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
      });
      template.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: [ref(stack.alerting.alarmTopics.oncall?.topicArn ?? '')],
      });
    });

    it("draws every custom metric on one dashboard, and the rest from the functions' logs", () => {
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
      for (const name of new Set(METRIC_INVENTORY.map((series) => series.name))) {
        expect(body).toContain(name);
      }
      for (const state of CALL_STATES) expect(body).toContain(`\\"state\\",\\"${state}\\"`);
      // Logs Insights queries of the lines the functions write (functions/observe.ts, samples.ts, notifier-metrics.ts).
      for (const line of [
        'samples queued',
        'queued sample dropped',
        'poll succeeded',
        'notifier round',
        'alert events taken in',
        'API request failed',
        'pct(apiMs, 90)',
      ]) {
        expect(body).toContain(line);
      }
      expect(body).not.toContain("SEARCH('{Telealert}");
    });
  });

  describe('outputs', () => {
    it('outputs the topic ARNs (the alarm topic of a filtered channel too), the table name and the dashboard URL', () => {
      template.hasOutput('TopicArnoncall', {
        Value: ref(stack.alerting.topics.oncall?.topicArn ?? ''),
      });
      template.hasOutput('TopicArnfinance', { Value: Match.anyValue() });
      // oncall has minSeverity and takes the alarms: its alarm topic is an output of its own.
      template.hasOutput('AlarmTopicArnoncall', {
        Value: ref(stack.alerting.alarmTopics.oncall?.topicArn ?? ''),
      });
      expect(Object.keys(template.findOutputs('AlarmTopicArnfinance'))).toEqual([]);
      template.hasOutput('TableName', { Value: ref(stack.alerting.table.tableName) });
      const url = JSON.stringify(template.findOutputs('DashboardUrl'));
      expect(url).toContain('#dashboards:name=');
    });
  });

  it('matches the snapshot (asset hashes stripped)', () => {
    expect(stripAssetHashes(template.toJSON())).toMatchSnapshot();
  });
});
