import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { TelealertAlerting } from './alerting';

/** One acknowledged cdk-nag finding and why it is acceptable here. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
}

/**
 * Findings acknowledged on the dead-letter queue when no sample queue uses it as its DLQ
 * (cdk-nag then recognises it as one and finds nothing).
 */
export const DEAD_LETTER_QUEUE_ACKS: readonly NagAcknowledgement[] = [
  {
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself the dead-letter queue (the on-failure destination of the pollers); a DLQ of a DLQ would only move the messages one hop further.',
  },
];

/**
 * Acknowledged on the notifier role's policy: the grant its stream event source makes
 * (`Table.grantStreamRead`, as AWS's `AWSLambdaDynamoDBExecutionRole`): `dynamodb:ListStreams`
 * on `*`. Every other action of that grant is on the table's one stream.
 */
export const STREAM_READ_ACKS: readonly NagAcknowledgement[] = [
  {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      "dynamodb:ListStreams, which Lambda's event source mapping on the state table's stream needs, is granted on * by aws-cdk-lib's grantStreamRead (as AWS's own AWSLambdaDynamoDBExecutionRole); it lists stream ARNs only. Reading records (DescribeStream, GetShardIterator, GetRecords) is granted on this table's stream alone.",
  },
];

/** The acknowledgements a telealert construct needs, each with the construct it is recorded on. */
export function nagAcknowledgements(
  alerting: TelealertAlerting,
): readonly { readonly on: IConstruct; readonly acks: readonly NagAcknowledgement[] }[] {
  const redriven = Object.values(alerting.pollers).some((poller) => poller?.sampleQueue);
  const role = alerting.notifier.function.role;
  const policy = role?.node.tryFindChild('DefaultPolicy');
  return [
    ...(redriven ? [] : [{ on: alerting.deadLetterQueue, acks: DEAD_LETTER_QUEUE_ACKS }]),
    ...(policy ? [{ on: policy, acks: STREAM_READ_ACKS }] : []),
  ];
}

/**
 * Records every acknowledgement the telealert construct needs, each on the narrowest
 * construct, with its reason. Anything else cdk-nag finds fails the synth.
 */
export function acknowledgeNagFindings(alerting: TelealertAlerting): void {
  for (const { on, acks } of nagAcknowledgements(alerting)) Validations.of(on).acknowledge(...acks);
}

/** Runs the AWS Solutions checks on every synth of `app`. */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}
