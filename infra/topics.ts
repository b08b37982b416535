import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, SmsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import {
  type ChannelConfig,
  type PersonConfig,
  SEVERITIES,
  type Severity,
} from '../shared/types/config';

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
  /**
   * The members of the channel's rotation (contract section 8): each one's SMS and email
   * subscription filters on the message attribute `oncall` being their name.
   *
   * @default none
   */
  readonly members?: readonly PersonConfig[];
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
    const members = props.members ?? [];
    // A rotation's channel: its fixed lists are told every alert message but not the handoffs
    // (those are for the incoming person); each member is told what reaches them (`oncall`).
    const fixed = members.length > 0 ? withoutHandoffs(filterPolicy) : filterPolicy;
    subscribe(this.topic, channel, fixed, (number) => smsFilter(number, fixed));
    for (const person of members) subscribeMember(this.topic, channel, person, channel.minSeverity);
    // Any filter policy drops the alarms (they carry no attributes): SMS subscriptions always
    // have one, so an alarmed channel with numbers gets the unfiltered alarm topic too. Alarms
    // cannot be routed to the person on call, so every member's email gets them.
    if (
      props.alarms === true &&
      (fixed !== undefined || channel.sms.length > 0 || members.length > 0)
    ) {
      this.alarmTopic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
      subscribe(this.alarmTopic, channel, undefined, undefined);
      for (const person of members) {
        if (person.email !== undefined && !channel.email.includes(person.email)) {
          this.alarmTopic.addSubscription(new EmailSubscription(person.email));
        }
      }
    } else {
      this.alarmTopic = this.topic;
    }
  }
}

/**
 * A fixed number's filter policy. The message must carry an SMS body (attribute `sms` = `yes`):
 * with `MessageStructure: json`, an SMS subscriber of a message without one (email only: no
 * numbers wanted, or held by the SMS cap) would otherwise be sent the `default` body, the
 * message JSON, as a text. Then either it is addressed to this number (attribute `to`: an
 * ack's confirmation goes to its caller alone, whatever `minSeverity`, contract 6.1 rule 7), or
 * to nobody and it passes the channel's `filter` (its `minSeverity`; on a rotation's channel,
 * no handoff). One `$or` of two branches: within SNS's limits (five attribute names, 150
 * combinations), and within moto's stricter count of combinations too (it multiplies the
 * branches rather than adding them: a member's three-branch policy with `to` was refused).
 */
export function smsFilter(
  number: string,
  filter: Record<string, SubscriptionFilter> | undefined,
): Record<string, SubscriptionFilter> {
  const toNobody = { to: [{ exists: false }] };
  const reaches = Object.fromEntries(
    Object.entries(filter ?? {}).map(([name, f]) => [name, f.conditions]),
  );
  return {
    sms: SubscriptionFilter.stringFilter({ allowlist: ['yes'] }),
    $or: new SubscriptionFilter([{ to: [number] }, { ...toNobody, ...reaches }]),
  };
}

/** Subscribes every email address and phone number of `channel` to `topic`. */
function subscribe(
  topic: Topic,
  channel: ChannelConfig,
  filterPolicy: Record<string, SubscriptionFilter> | undefined,
  smsFilterPolicy: ((number: string) => Record<string, SubscriptionFilter>) | undefined,
): void {
  for (const address of channel.email) {
    topic.addSubscription(new EmailSubscription(address, { filterPolicy }));
  }
  for (const number of channel.sms) {
    topic.addSubscription(new SmsSubscription(number, { filterPolicy: smsFilterPolicy?.(number) }));
  }
}

/** A fixed list's filter on a rotation's channel: every kind of message but a `handoff`. */
export function withoutHandoffs(
  filter: Record<string, SubscriptionFilter> | undefined,
): Record<string, SubscriptionFilter> {
  return { ...filter, kind: SubscriptionFilter.stringFilter({ denylist: ['handoff'] }) };
}

/**
 * A rotation member's filter (contract section 8): the messages that reach them (attribute
 * `oncall` is their name), at or above the channel's `minSeverity` when it has one, their
 * `handoff` whatever it lists (a handoff with nothing firing is `info`, and the incoming person
 * must know they carry the pager), and the confirmation of their own call to `ack.did` (an `ack`
 * carries the caller as `oncall`, whoever is on call: contract 6.1 rule 7). With `sms`, only
 * messages that carry an SMS body.
 */
export function memberFilter(
  name: string,
  min: Severity | undefined,
  sms: boolean,
): Record<string, SubscriptionFilter> {
  const reaches: Record<string, SubscriptionFilter> = {
    oncall: SubscriptionFilter.stringFilter({ allowlist: [name] }),
    ...(sms ? { sms: SubscriptionFilter.stringFilter({ allowlist: ['yes'] }) } : {}),
  };
  if (min === undefined) return reaches;
  return {
    ...reaches,
    $or: new SubscriptionFilter([
      { kind: ['handoff', 'ack'] },
      { severity: severitiesAtOrAbove(min) },
    ]),
  };
}

/**
 * Subscribes one member of the channel's rotation with `memberFilter`, except where the
 * channel's fixed lists already hold the address or number (it gets every message already), so
 * a handoff or an override changes no subscription.
 */
function subscribeMember(
  topic: Topic,
  channel: ChannelConfig,
  person: PersonConfig,
  min: Severity | undefined,
): void {
  if (person.email !== undefined && !channel.email.includes(person.email)) {
    topic.addSubscription(
      new EmailSubscription(person.email, { filterPolicy: memberFilter(person.name, min, false) }),
    );
  }
  if (person.sms !== undefined && !channel.sms.includes(person.sms)) {
    topic.addSubscription(
      new SmsSubscription(person.sms, { filterPolicy: memberFilter(person.name, min, true) }),
    );
  }
}
