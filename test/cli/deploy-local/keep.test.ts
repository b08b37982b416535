import { describe, expect, it } from 'vitest';
import { describeRun, practiceLines, rateMs } from '../../../cli/deploy-local/keep';
import type { MotoServer } from '../../../cli/deploy-local/moto';

const moto = {
  endpoint: 'http://localhost:4567',
  environment: {
    AWS_ENDPOINT_URL: 'http://localhost:4567',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  },
  applyEnv: () => {},
  stop: async () => {},
} satisfies MotoServer;

describe('a kept rehearsal', () => {
  it('reads the period of an EventBridge rate expression', () => {
    expect(rateMs('rate(1 minute)')).toBe(60_000);
    expect(rateMs('rate(5 minutes)')).toBe(300_000);
    expect(rateMs('rate(2 hours)')).toBe(7_200_000);
    expect(rateMs('cron(0 9 * * ? *)')).toBeUndefined();
    expect(rateMs(undefined)).toBeUndefined();
  });

  it('prints the exports and --stack commands to paste in another shell', () => {
    const text = practiceLines(moto, ['alerts', 'silence', 'ack']);
    expect(text).toContain('export AWS_ENDPOINT_URL=http://localhost:4567 AWS_REGION=us-east-1');
    expect(text).toContain('AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing');
    expect(text).toContain('npx telealert alerts --stack "$STACK"');
    expect(text).toContain('npx telealert silence add --match rule=too-many-ringing');
    expect(text).toContain('npx telealert ack --rule too-many-ringing --stack "$STACK"');
    expect(text).not.toContain('oncall');
    expect(practiceLines(moto, ['alerts', 'oncall'])).toContain(
      'npx telealert oncall --stack "$STACK"',
    );
  });

  it('says in one line what a run did, and nothing for a notifier round that had nothing to do', () => {
    expect(
      describeRun('schedule', { source: 'live_calls', records: 18, owedLeft: 4, failures: 0 }),
    ).toBe('schedule live_calls: 18 records, 4 events committed for the notifier');
    expect(
      describeRun('schedule', { source: 'payments', records: 0, owedLeft: 0, failures: 1 }),
    ).toBe('schedule payments: 0 records, 0 events committed for the notifier, poll FAILED (1)');
    expect(describeRun('stream ->', { taken: 4, published: ['a'], unpublished: ['b', 'c'] })).toBe(
      'stream -> notifier: 4 events taken, 1 messages published, 2 left owed',
    );
    expect(describeRun('schedule', { taken: 0, published: [], unpublished: [] })).toBeUndefined();
  });
});
