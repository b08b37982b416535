import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createObserver } from '../../functions/observe';
import { emfSeriesOf, type SeenSeries } from '../../shared/observability/emf';
import { RecordBatch } from '../../shared/records/batch';
import type { RunEvent } from '../../shared/runner/types';
import type { SourceName } from '../../shared/types/config';

afterEach(() => vi.restoreAllMocks());

/**
 * What the observer made of `events` on a `source` poller: every metric series and value it
 * published (EMF documents written to stdout, as Lambda ships them) and its log lines.
 */
function observe(source: SourceName, ...events: RunEvent[]) {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const metrics = new Metrics({
    namespace: 'Telealert',
    serviceName: 'telealert',
    defaultDimensions: { source },
  });
  const logger = new Logger({ logLevel: 'SILENT' });
  const info = vi.spyOn(logger, 'info');
  const warn = vi.spyOn(logger, 'warn');
  const observer = createObserver(logger, metrics, source);
  for (const event of events) observer.event(event);
  metrics.publishStoredMetrics();
  vi.mocked(process.stdout.write).mockRestore();
  const series: SeenSeries[] = lines.flatMap((line) => emfSeriesOf(line));
  const values = series.map((s) => `${s.key}=${s.value}`).sort();
  const logged = [...info.mock.calls, ...warn.mock.calls].map(
    ([message, fields]) => ({ message, ...(fields as object) }) as Record<string, unknown>,
  );
  return { values, logged };
}

/** A batch of records of `source` with these fields. */
function batch(source: SourceName, rows: readonly Record<string, unknown>[]): RecordBatch {
  return RecordBatch.of(
    rows.map((fields, index) => ({ source, key: String(index), fields })) as never,
  );
}

const polled: RunEvent = {
  type: 'poll',
  sample: 0,
  atMs: 0,
  records: RecordBatch.EMPTY,
  skipped: 0,
  skipReasons: [],
};
const committed: RunEvent = {
  type: 'committed',
  sample: 0,
  revision: 4,
  written: true,
  pollOk: true,
  owed: 0,
};
const failedPoll: RunEvent = {
  ...polled,
  failure: { kind: 'http', status: 500, message: 'server error' },
};

describe('Function: createObserver', () => {
  it('counts PollSucceeded once a successful poll has its state committed, and nothing else on payments', () => {
    const payments = batch('payments', [
      { id: 1, status: 'Pending' },
      { id: 2, status: 'success' },
    ]);
    const { values, logged } = observe('payments', { ...polled, records: payments }, committed);
    expect(values).toEqual(['PollSucceeded{service=telealert,source=payments}=1']);
    expect(logged).toContainEqual(
      expect.objectContaining({ message: 'poll succeeded', pending: 1, records: 2, skipped: 0 }),
    );
  });

  it('logs calls to ack.did from numbers in no channel, without a metric', () => {
    const { values, logged } = observe('payments', polled, { ...committed, ackCallsRefused: 2 });
    expect(values).toEqual(['PollSucceeded{service=telealert,source=payments}=1']);
    expect(logged).toContainEqual(
      expect.objectContaining({
        message: 'calls to ack.did from numbers in no channel acknowledged nothing',
        calls: 2,
      }),
    );
  });

  it('stops the heartbeat when a successful poll cannot be committed', () => {
    const { values } = observe('payments', polled);
    expect(values).toEqual([]);
  });

  it('counts a failed poll as PollFailed, not PollSucceeded, even once committed', () => {
    const { values } = observe('payments', failedPoll, { ...committed, pollOk: false });
    expect(values).toEqual(['PollFailed{service=telealert,source=payments}=1']);
  });

  it('puts the slowest API answer of a sample on its poll line, and a failed request on a line of its own', () => {
    const fetch = (latencyMs: number, failure?: object): RunEvent =>
      ({ type: 'fetch', sample: 0, endpoint: 'payments', latencyMs, failure }) as RunEvent;
    const { values, logged } = observe(
      'payments',
      fetch(120),
      fetch(340, { kind: 'timeout' }),
      polled,
      fetch(80),
      { ...polled, sample: 1 },
    );
    expect(values).toEqual([]);
    expect(logged.filter((l) => l.message === 'poll succeeded').map((l) => l.apiMs)).toEqual([
      340, 80,
    ]);
    expect(logged).toContainEqual(
      expect.objectContaining({ message: 'API request failed', latencyMs: 340 }),
    );
  });

  it('counts live calls by state in a bounded set, every other state (any length) as other', () => {
    const calls = batch('live_calls', [
      { call_id: 'a', state: 'Ringing' },
      { call_id: 'b', state: 'RINGING' },
      { call_id: 'c', state: 'answered' },
      { call_id: 'd', state: 'on-hold' },
      { call_id: 'e', state: 'x'.repeat(500) },
      { call_id: 'f' },
    ]);
    const { values, logged } = observe('live_calls', { ...polled, records: calls });
    expect(values).toEqual([
      'CallsByState{service=telealert,source=live_calls,state=answered}=1',
      'CallsByState{service=telealert,source=live_calls,state=other}=3',
      'CallsByState{service=telealert,source=live_calls,state=ringing}=2',
    ]);
    expect(logged).toContainEqual(
      expect.objectContaining({
        message: 'poll succeeded',
        calls: { ringing: 2, answered: 1, other: 3 },
      }),
    );
  });

  it('graphs a quiet minute of live calls as 0 in every state', () => {
    const { values } = observe('live_calls', polled);
    expect(values).toEqual([
      'CallsByState{service=telealert,source=live_calls,state=answered}=0',
      'CallsByState{service=telealert,source=live_calls,state=other}=0',
      'CallsByState{service=telealert,source=live_calls,state=ringing}=0',
    ]);
  });
});
