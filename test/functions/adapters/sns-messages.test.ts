import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { messageAttributes, SnsMessagePublisher } from '../../../functions/adapters/sns-messages';
import type { Message } from '../../../shared/notifier/types';
import { sampleMessage } from '../../ports/notifier-contract';

const sns = mockClient(SNSClient);
afterEach(() => sns.reset());

const TOPICS = {
  oncall: 'arn:aws:sns:us-east-1:1:oncall',
  finance: 'arn:aws:sns:us-east-1:1:finance',
};
const SMS_ATTRIBUTES = {
  'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
  'AWS.MM.SMS.TemplateId': { DataType: 'String', StringValue: '1107123456789012345' },
} as const;

describe('Class: SnsMessagePublisher', () => {
  it('calls a message to a channel with no topic undeliverable, without trying to publish it', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    const publisher = new SnsMessagePublisher({
      client: new SNSClient({ region: 'us-east-1' }),
      topics: TOPICS,
    });
    const gone: Message = { ...sampleMessage('a1'), channel: 'finance-old' };
    const kept: Message = { ...sampleMessage('a2'), channel: 'oncall' };
    expect(await publisher.publish([gone, kept])).toEqual({
      delivered: [kept.id],
      undeliverable: [gone.id],
    });
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
  });

  it('adds the SMS attributes to messages with an SMS body for channels with SMS subscribers only', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    const publisher = new SnsMessagePublisher({
      client: new SNSClient({ region: 'us-east-1' }),
      topics: TOPICS,
      sms: { channels: new Set(['oncall']), attributes: SMS_ATTRIBUTES },
    });
    const withSms: Message = { ...sampleMessage('a1'), channel: 'oncall' };
    const emailOnly: Message = { ...sampleMessage('a2'), channel: 'oncall', sms: null };
    const otherChannel: Message = { ...sampleMessage('a3'), channel: 'finance' };
    await publisher.publish([withSms, emailOnly, otherChannel]);
    const attributes = sns
      .commandCalls(PublishCommand)
      .map((call) => Object.keys(call.args[0].input.MessageAttributes ?? {}).sort());
    expect(attributes).toEqual([
      ['AWS.MM.SMS.TemplateId', 'AWS.SNS.SMS.SMSType', 'kind', 'severity', 'sms'],
      ['kind', 'severity', 'sms'],
      ['kind', 'severity', 'sms'],
    ]);
  });
});

describe('Function: messageAttributes', () => {
  it('addresses an ack confirmation to its caller (`to`), and other messages to nobody', () => {
    const ack: Message = { ...sampleMessage('a1'), kind: 'ack', alerts: [], to: '+919800000001' };
    expect(messageAttributes(ack)).toEqual({
      severity: { DataType: 'String', StringValue: 'info' },
      kind: { DataType: 'String', StringValue: 'ack' },
      sms: { DataType: 'String', StringValue: 'yes' },
      to: { DataType: 'String', StringValue: '+919800000001' },
    });
    expect(Object.keys(messageAttributes(sampleMessage('a2')))).not.toContain('to');
  });
});
