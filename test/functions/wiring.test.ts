import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoNotifierStore } from '../../functions/adapters/dynamodb-notifier';
import { DynamoStateStore } from '../../functions/adapters/dynamodb-state';
import { SnsMessagePublisher } from '../../functions/adapters/sns-messages';
import { wireNotifier } from '../../functions/notifier-wiring';
import { pollCorrelationId } from '../../functions/poll';
import { wirePoller } from '../../functions/wiring';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';

const RULES = `
api: { baseUrl: "http://127.0.0.1:9", tokenParameter: /unit/api-token }
channels: { oncall: { sms: ["+12025550100"] } }
rules: []
`;

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-wiring-'));
  writeEmbeddedConfig(join(directory, 'telealert.json'), parseConfig(RULES, 'telealert.yaml'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

function wiringContext(topics = true) {
  return {
    env: {
      TELEALERT_CONFIG_FILE: join(directory, 'telealert.json'),
      AWS_REGION: 'us-east-1',
      TELEALERT_TABLE: 'state',
      ...(topics
        ? { TELEALERT_TOPICS: JSON.stringify({ oncall: 'arn:aws:sns:us-east-1:1:oncall' }) }
        : {}),
    },
    now: () => 0,
    sleep: async () => undefined,
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'Unit' }),
  };
}

describe('Function: wirePoller', () => {
  it('commits to the state table and publishes nothing: no topics, no SNS client', () => {
    const wiring = wirePoller(wiringContext(false));
    expect(wiring).not.toHaveProperty('publisher');
    expect(wiring.runtime).not.toHaveProperty('sns');
    expect(wiring.store).toBeInstanceOf(DynamoStateStore);
    expect(wiring.runtime.tableName).toBe('state');
    expect(wiring.samples).toBeUndefined();
  });
});

describe('Function: wireNotifier', () => {
  it("takes the pollers' events from the state table, keeps its own state there and publishes messages to the topics", () => {
    const wiring = wireNotifier(wiringContext());
    expect(wiring.events).toBeInstanceOf(DynamoStateStore);
    expect(wiring.store).toBeInstanceOf(DynamoNotifierStore);
    expect(wiring.publisher).toBeInstanceOf(SnsMessagePublisher);
  });
});

describe('Function: pollCorrelationId', () => {
  const context = { awsRequestId: 'request-1' } as Context;

  it("correlates a queued sample's run by its message id", () => {
    const event = {
      Records: [{ messageId: 'message-1', eventSource: 'aws:sqs' }],
    } as unknown as SQSEvent;
    expect(pollCorrelationId(event, context)).toBe('message-1');
  });

  it("correlates a scheduled run by the schedule's event id, else by the request id", () => {
    expect(pollCorrelationId({ id: 'schedule-1' }, context)).toBe('schedule-1');
    expect(pollCorrelationId({}, context)).toBe('request-1');
  });
});
