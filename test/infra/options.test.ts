import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { FIXTURES, iamStatements, SHIPPED_CONFIG, synthStack } from './helpers';

describe('Class: TelealertAlerting (options)', () => {
  it('builds a poller for a source no rule reads too: no token, no alarms, no sample queue', () => {
    const { stack, template } = synthStack(join(FIXTURES, 'live-calls-only.yaml'));
    // Both pollers, and the notifier.
    template.resourceCountIs('AWS::Lambda::Function', 3);
    template.resourceCountIs('AWS::Events::Rule', 3);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(2 minutes)' });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Description: Match.stringLikeRegexp('end the alerts of removed payments rules'),
    });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 115 });
    // Payments: asks the API nothing, so it reads no token.
    const payments = stack.alerting.pollers.payments;
    expect(payments?.sampleQueue).toBeUndefined();
    const role = stack.resolve(payments?.function.role?.roleName);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter(
      (policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([role]),
    );
    const sids = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Sid?: string }[]).map((s) => s.Sid),
    );
    expect(sids).toContain('StateTable');
    expect(sids).not.toContain('ReadApiToken');
    // Dead-man's switch, errors, throttles for live_calls only (a poller that asks nothing
    // reports no heartbeat; its failures land in the dead-letter queue), the notifier's
    // errors, messages undeliverable, dead letters.
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
