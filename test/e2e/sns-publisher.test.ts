import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnsPublisher } from '../../functions/adapters/sns-publisher';
import { sampleNotification } from '../ports/fixtures';
import { createFakeStack, type FakeStack } from '../support/aws';
import { type Moto, startMoto } from './moto';

let moto: Moto;
let stack: FakeStack;
let sns: SNSClient;

beforeAll(async () => {
  moto = await startMoto();
  moto.applyEnv();
  stack = await createFakeStack({
    prefix: 'pub',
    channels: { oncall: {}, managers: { minSeverity: 'critical' } },
    tokenParameter: '/pub/token',
    token: 'unused',
  });
  sns = new SNSClient({});
});
afterAll(async () => {
  sns?.destroy();
  stack?.destroy();
  await moto?.stop();
});

describe('Class: SnsPublisher (on moto)', () => {
  it('delivers the notification JSON to each channel, filtered by severity', async () => {
    const publisher = new SnsPublisher({ client: sns, topics: stack.topics });
    const critical = sampleNotification({ channels: ['oncall', 'managers'] });
    const warning = sampleNotification({
      key: 'slow{id=1}',
      severity: 'warning',
      channels: ['oncall', 'managers'],
    });
    const many = Array.from({ length: 11 }, (_, i) => sampleNotification({ key: `k{id=${i}}` }));
    const { delivered, partial } = await publisher.publish([critical, warning, ...many]);
    expect([delivered.length, partial]).toEqual([13, []]);
    const oncall = await stack.drain('oncall');
    expect(oncall).toHaveLength(13);
    expect(oncall[0]).toMatchObject({ id: critical.id, rule: critical.rule, sms: critical.sms });
    expect((await stack.drain('managers')).map((b) => b.id)).toEqual([critical.id]);
  });
});
