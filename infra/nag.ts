import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { TelealertAlerting } from './alerting';

/** One acknowledged cdk-nag finding and why it is acceptable here. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
}

/** Findings acknowledged on the dead-letter queue. */
export const DEAD_LETTER_QUEUE_ACKS: readonly NagAcknowledgement[] = [
  {
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself the dead-letter queue (the on-failure destination of the pollers); a DLQ of a DLQ would only move the messages one hop further.',
  },
];

/**
 * Records every acknowledgement the telealert construct needs, each on the narrowest
 * construct, with its reason. Anything else cdk-nag finds fails the synth.
 */
export function acknowledgeNagFindings(alerting: TelealertAlerting): void {
  Validations.of(alerting.deadLetterQueue).acknowledge(...DEAD_LETTER_QUEUE_ACKS);
}

/** Runs the AWS Solutions checks on every synth of `app`. */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}
