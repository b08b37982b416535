import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, SmsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { type ChannelConfig, SEVERITIES, type Severity } from '../shared/config/types';

/** The severities a `minSeverity` subscription receives: that one and every one above it. */
export function severitiesAtOrAbove(min: Severity): Severity[] {
  return SEVERITIES.slice(SEVERITIES.indexOf(min));
}

/**
 * The `minSeverity` filter policy on the `severity` message attribute. Messages without a
 * `severity` attribute also pass: CloudWatch alarm notifications (the self-monitoring) carry
 * no message attributes, and a plain allowlist would silently drop them for an on-call
 * channel with `minSeverity`. Telealert's own notifications always carry `severity`.
 */
export function severityFilter(min: Severity): Record<string, SubscriptionFilter> {
  return { severity: new SubscriptionFilter([...severitiesAtOrAbove(min), { exists: false }]) };
}

export interface ChannelTopicProps {
  readonly channel: ChannelConfig;
  /** The customer managed key the topic is encrypted with. */
  readonly key: IKey;
}

/**
 * One channel of the rules file: a KMS-encrypted, TLS-only SNS topic with its email and SMS
 * subscriptions. No display name on purpose: SNS prefixes SMS bodies with it, which would
 * eat into the 160-character segment the messages are written for.
 */
export class ChannelTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: ChannelTopicProps) {
    super(scope, id);
    const { channel, key } = props;
    this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const filterPolicy = channel.minSeverity ? severityFilter(channel.minSeverity) : undefined;
    for (const address of channel.email) {
      this.topic.addSubscription(new EmailSubscription(address, { filterPolicy }));
    }
    for (const number of channel.sms) {
      this.topic.addSubscription(new SmsSubscription(number, { filterPolicy }));
    }
  }
}
