import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
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

/** The acknowledgements a telealert construct needs: none when a sample queue redrives to the DLQ. */
export function nagAcknowledgements(alerting: TelealertAlerting): readonly NagAcknowledgement[] {
  const redriven = Object.values(alerting.pollers).some((poller) => poller?.sampleQueue);
  return redriven ? [] : DEAD_LETTER_QUEUE_ACKS;
}

/**
 * Records every acknowledgement the telealert construct needs, each on the narrowest
 * construct, with its reason. Anything else cdk-nag finds fails the synth.
 */
export function acknowledgeNagFindings(alerting: TelealertAlerting): void {
  const acks = nagAcknowledgements(alerting);
  if (acks.length > 0) Validations.of(alerting.deadLetterQueue).acknowledge(...acks);
}

/** Runs the AWS Solutions checks on every synth of `app`. */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}
