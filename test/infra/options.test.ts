import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, iamStatements, SHIPPED_CONFIG, synthStack } from './helpers';

describe('Class: TelealertAlerting (options)', () => {
  it('builds a poller only for sources that some rule uses', () => {
    const { template } = synthStack(join(FIXTURES, 'live-calls-only.yaml'));
    // The one poller, and the notifier.
    template.resourceCountIs('AWS::Lambda::Function', 2);
    template.resourceCountIs('AWS::Events::Rule', 2);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 115 });
    // Dead-man's switch, errors, throttles for live_calls, the notifier's errors, messages
    // undeliverable, dead letters.
    template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
  }, 60_000);

  it('reads a parameter without a leading slash by its plain name', () => {
    const { template } = synthStack(join(FIXTURES, 'live-calls-only.yaml'));
    const token = iamStatements(template).find((s) => s.Sid === 'ReadApiToken');
    expect(JSON.stringify(token?.Resource)).toContain(':parameter/telealert-token"');
  }, 60_000);

  it('grants kms:Decrypt on a given token key only through SSM', () => {
    const keyArn = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const { template } = synthStack(SHIPPED_CONFIG, { tokenKeyArn: keyArn });
    const decrypt = iamStatements(template).filter((s) => s.Sid === 'DecryptApiTokenViaSsm');
    expect(decrypt.length).toBe(2);
    for (const statement of decrypt) {
      expect(statement).toEqual({
        Sid: 'DecryptApiTokenViaSsm',
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: keyArn,
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
          },
        },
      });
    }
  }, 60_000);

  it('lets a new account without spare concurrency skip the reservation', () => {
    const { template } = synthStack(SHIPPED_CONFIG, { reserveConcurrency: false });
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(3);
    for (const fn of functions) {
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  }, 60_000);
});
