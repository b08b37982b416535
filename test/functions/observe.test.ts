import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { createObserver } from '../../functions/observe';
import { RecordBatch } from '../../shared/records/batch';
import type { RunEvent } from '../../shared/runner/types';

/** The metric names (and values) the observer has recorded so far on `metrics`. */
function recorded(metrics: Metrics): Record<string, unknown> {
  const { _aws, ...values } = metrics.serializeMetrics() as Record<string, unknown>;
  return values;
}

function observe(...events: RunEvent[]) {
  const metrics = new Metrics({ namespace: 'Telealert', serviceName: 'telealert' });
  const observer = createObserver(new Logger({ logLevel: 'SILENT' }), metrics, 'payments');
  for (const event of events) observer.event(event);
  return recorded(metrics);
}

const polled: RunEvent = {
  type: 'poll',
  sample: 0,
  atMs: 0,
  records: RecordBatch.EMPTY,
  skipped: 0,
  skipReasons: [],
};
const failedPoll: RunEvent = {
  ...polled,
  failure: { kind: 'http', status: 500, message: 'server error' },
};

describe('Function: createObserver', () => {
  it('counts PollSucceeded once a successful poll has its state committed', () => {
    const metrics = observe(polled, {
      type: 'committed',
      sample: 0,
      revision: 4,
      written: true,
      pollOk: true,
      owed: 0,
    });
    expect(metrics).toMatchObject({ PollSucceeded: 1, RecordsSkipped: 0, PendingPayments: 0 });
  });

  it('counts calls to ack.did from numbers in no channel as AckCallsRefused', () => {
    const metrics = observe(polled, {
      type: 'committed',
      sample: 0,
      revision: 4,
      written: true,
      pollOk: true,
      owed: 0,
      ackCallsRefused: 2,
    });
    expect(metrics).toMatchObject({ PollSucceeded: 1, AckCallsRefused: 2 });
  });

  it('stops the heartbeat when a successful poll cannot be committed', () => {
    const metrics = observe(polled);
    expect(metrics).not.toHaveProperty('PollSucceeded');
    expect(metrics).toHaveProperty('RecordsSkipped', 0);
  });

  it('counts a failed poll as PollFailed, not PollSucceeded, even once committed', () => {
    const metrics = observe(failedPoll, {
      type: 'committed',
      sample: 0,
      revision: 4,
      written: true,
      pollOk: false,
      owed: 0,
    });
    expect(metrics).toMatchObject({ PollFailed: 1 });
    expect(metrics).not.toHaveProperty('PollSucceeded');
  });
});
