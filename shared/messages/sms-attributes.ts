import type { Config, SmsConfig } from '../types/config';

/** A message attribute as SNS takes it (`MessageAttributeValue`), without the SDK's type. */
export interface SmsAttribute {
  readonly DataType: 'String';
  readonly StringValue: string;
}

/**
 * The SNS message attributes that carry the `sms` block to SMS subscribers (contract section
 * 7). SNS reads them on a topic publish as on a direct one and ignores them for other protocols.
 */
export const SMS_ATTRIBUTE_NAMES = {
  type: 'AWS.SNS.SMS.SMSType',
  senderId: 'AWS.SNS.SMS.SenderID',
  entityId: 'AWS.MM.SMS.EntityId',
  templateId: 'AWS.MM.SMS.TemplateId',
} as const;

const DEFAULT_SMS: SmsConfig = { type: 'Transactional', monthlyBudgetUsd: 1 };

/**
 * The attributes for every publish that reaches SMS subscribers: the SMS type always
 * (Transactional unless the rules file says Promotional), the sender ID when there is one, and
 * with `dlt` the entity and template ids India's carriers check the message against.
 */
export function smsAttributes(sms: SmsConfig | undefined): Readonly<Record<string, SmsAttribute>> {
  const { type, senderId, dlt } = sms ?? DEFAULT_SMS;
  const attribute = (value: string): SmsAttribute => ({ DataType: 'String', StringValue: value });
  return {
    [SMS_ATTRIBUTE_NAMES.type]: attribute(type),
    ...(senderId !== undefined ? { [SMS_ATTRIBUTE_NAMES.senderId]: attribute(senderId) } : {}),
    ...(dlt !== undefined
      ? {
          [SMS_ATTRIBUTE_NAMES.entityId]: attribute(dlt.entityId),
          [SMS_ATTRIBUTE_NAMES.templateId]: attribute(dlt.templateId),
        }
      : {}),
  };
}

/**
 * The channels with SMS subscribers (their fixed numbers, or a member of their rotation with a
 * number): their publishes carry the SMS attributes and alarms.
 */
export function smsChannelNames(config: Config): string[] {
  return Object.values(config.channels)
    .filter((channel) => channel.sms.length > 0 || rotationHasSms(config, channel.rotation))
    .map((channel) => channel.name);
}

function rotationHasSms(config: Config, rotation: string | undefined): boolean {
  if (rotation === undefined) return false;
  const members = config.rotations?.[rotation]?.members ?? [];
  return members.some((name) => config.people?.[name]?.sms !== undefined);
}

/** What a publisher adds for SMS: the channels with SMS subscribers and their attributes. */
export interface SmsPublishing {
  readonly channels: ReadonlySet<string>;
  readonly attributes: Readonly<Record<string, SmsAttribute>>;
}

/** The SMS attributes of `config` and the channels whose publishes carry them. */
export function smsPublishing(config: Config): SmsPublishing {
  return { channels: new Set(smsChannelNames(config)), attributes: smsAttributes(config.sms) };
}
