import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, SmsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { type ChannelConfig, SEVERITIES, type Severity } from '../shared/types/config';

/** The severities a `minSeverity` subscription receives: that one and every one above it. */
export function severitiesAtOrAbove(min: Severity): Severity[] {
  return SEVERITIES.slice(SEVERITIES.indexOf(min));
}

/**
 * The `minSeverity` filter policy on the `severity` message attribute: that severity and every
 * one above it. Telealert's own notifications always carry `severity`; CloudWatch alarm
 * notifications carry no message attributes at all, which no filter policy matches (not even
 * `"exists": false`), so the alarms reach a filtered channel by a topic of their own
 * (`ChannelTopic.alarmTopic`).
 */
export function severityFilter(min: Severity): Record<string, SubscriptionFilter> {
  return { severity: SubscriptionFilter.stringFilter({ allowlist: severitiesAtOrAbove(min) }) };
}

export interface ChannelTopicProps {
  readonly channel: ChannelConfig;
  /** The customer managed key the topic is encrypted with. */
  readonly key: IKey;
  /**
   * The channel receives the stack's self-monitoring alarms (it is in `health.notify`).
   *
   * @default false
   */
  readonly alarms?: boolean;
}

/**
 * One channel of the rules file: a KMS-encrypted, TLS-only SNS topic with its email and SMS
 * subscriptions. No display name on purpose: SNS prefixes SMS bodies with it, which would
 * eat into the 160-character segment the messages are written for.
 */
export class ChannelTopic extends Construct {
  readonly topic: Topic;
  /**
   * Where the stack's CloudWatch alarms reach the channel: its topic, or, for an alarmed channel
   * with `minSeverity`, a second topic with the same subscribers and no filter policy (an email
   * subscriber confirms both). Alarm notifications carry no message attributes, and SNS drops
   * a message without attributes for every subscription that has a filter policy.
   */
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: ChannelTopicProps) {
    super(scope, id);
    const { channel, key } = props;
    this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const filterPolicy = channel.minSeverity ? severityFilter(channel.minSeverity) : undefined;
    subscribe(this.topic, channel, filterPolicy, smsFilter(filterPolicy));
    // Any filter policy drops the alarms (they carry no attributes): SMS subscriptions always
    // have one, so an alarmed channel with numbers gets the unfiltered alarm topic too.
    if (props.alarms === true && (filterPolicy !== undefined || channel.sms.length > 0)) {
      this.alarmTopic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
      subscribe(this.alarmTopic, channel, undefined, undefined);
    } else {
      this.alarmTopic = this.topic;
    }
  }
}

/**
 * The SMS subscriptions' filter policy: the channel's severity filter, and the message must
 * carry an SMS body (attribute `sms` = `yes`). With `MessageStructure: json`, an SMS
 * subscriber of a message without an `sms` body (email only: no numbers wanted, or held by the
 * SMS cap) would otherwise be sent the `default` body, the message JSON, as a text.
 */
export function smsFilter(
  severity: Record<string, SubscriptionFilter> | undefined,
): Record<string, SubscriptionFilter> {
  return { ...severity, sms: SubscriptionFilter.stringFilter({ allowlist: ['yes'] }) };
}

/** Subscribes every email address and phone number of `channel` to `topic`. */
function subscribe(
  topic: Topic,
  channel: ChannelConfig,
  filterPolicy: Record<string, SubscriptionFilter> | undefined,
  smsFilterPolicy: Record<string, SubscriptionFilter> | undefined,
): void {
  for (const address of channel.email) {
    topic.addSubscription(new EmailSubscription(address, { filterPolicy }));
  }
  for (const number of channel.sms) {
    topic.addSubscription(new SmsSubscription(number, { filterPolicy: smsFilterPolicy }));
  }
}
