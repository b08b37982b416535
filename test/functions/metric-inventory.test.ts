import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordNotifierRound } from '../../functions/notifier-metrics';
import { createObserver } from '../../functions/observe';
import { sourceMetrics } from '../../functions/powertools';
import { emfSeriesOf } from '../../shared/observability/emf';
import {
  inventoryEntry,
  METRIC_INVENTORY,
  METRIC_NAMES,
  seriesKey,
} from '../../shared/observability/metrics';
import { RecordBatch } from '../../shared/records/batch';
import type { NotifierRoundResult } from '../../shared/runner/notifier-round';
import type { RunEvent } from '../../shared/runner/types';
import { SOURCES, type SourceName } from '../../shared/types/config';

const ROOT = join(import.meta.dirname, '..', '..');
const FUNCTIONS = join(ROOT, 'functions');

/**
 * The files of functions/ that publish metrics, each driven below through every event that
 * makes it publish. A new one fails the first test: drive it here, and put what it publishes
 * in `METRIC_INVENTORY` (shared/observability/metrics.ts), where the bill prices it.
 */
const EMITTERS = ['functions/notifier-metrics.ts', 'functions/observe.ts'];

afterEach(() => vi.restoreAllMocks());

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every EMF series `emit` makes a function's metrics publish, as the deployed function would. */
function emitted(source: string, emit: (metrics: ReturnType<typeof sourceMetrics>) => void) {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const metrics = sourceMetrics(source);
    emit(metrics);
    metrics.publishStoredMetrics();
  } finally {
    vi.mocked(process.stdout.write).mockRestore();
  }
  return lines.flatMap((line) => emfSeriesOf(line));
}

/** Every EMF series a poller's observer publishes for `events`. */
function published(source: SourceName, events: readonly RunEvent[]) {
  return emitted(source, (metrics) => {
    const observer = createObserver(new Logger({ logLevel: 'SILENT' }), metrics, source);
    for (const event of events) observer.event(event);
  });
}

/** Every EMF series the notifier publishes for a round that did all it can (a message undeliverable). */
function publishedByNotifier() {
  const message = {
    at: '2026-11-21T04:31:00.000Z',
    channel: 'finance',
    kind: 'digest',
    alerts: [],
    sms: null,
    subject: 's',
    text: 't',
    id: 'm1',
  } as const;
  const round: NotifierRoundResult = {
    decided: [],
    published: [],
    unpublished: [],
    undeliverable: [message],
    taken: 0,
    takenEvents: [],
    skipped: 0,
    nextDueAtMs: undefined,
    heldDueAtMs: undefined,
    released: true,
    unfollowed: [],
    unanswered: 0,
    markSentFailed: [],
    left: 1,
    steps: 1,
  };
  return emitted('notifier', (metrics) =>
    recordNotifierRound(round, new Logger({ logLevel: 'SILENT' }), metrics),
  );
}

/** What every function publishes, each driven through all it can do. */
function everySeries() {
  return [
    ...SOURCES.flatMap((source) => published(source, everyEvent(source))),
    ...publishedByNotifier(),
  ];
}

/** Each kind of run event, with records in every state and field the observer reads. */
function everyEvent(source: SourceName): RunEvent[] {
  const records = RecordBatch.of(
    [
      { call_id: 'a', state: 'Ringing', status: 'pending' },
      { call_id: 'b', state: 'Answered', status: 'success' },
      { call_id: 'c', state: `state-${'x'.repeat(300)}`, status: 'failed' },
    ].map((fields) => ({ source, key: fields.call_id, fields })) as never,
  );
  const poll = { type: 'poll', sample: 0, atMs: 0, records, skipped: 1, skipReasons: [] } as const;
  const notification = { id: 'n1', rule: 'r', status: 'firing', severity: 'warning', channels: [] };
  return [
    { type: 'fetch', sample: 0, endpoint: source, latencyMs: 12 },
    {
      type: 'fetch',
      sample: 0,
      endpoint: source,
      latencyMs: 12,
      failure: { kind: 'timeout', message: 'slow' },
    },
    poll,
    { ...poll, failure: { kind: 'http', status: 500, message: 'server error' } },
    { type: 'committed', sample: 0, revision: 1, written: true, pollOk: true, owed: 1 },
    {
      type: 'committed',
      sample: 0,
      revision: 2,
      written: true,
      pollOk: false,
      owed: 0,
      ackCallsRefused: 3,
    },
    { type: 'sent', sample: 0, notifications: [notification] },
    { type: 'undelivered', ids: ['n1'] },
    { type: 'held', sample: 0, ids: ['n1'] },
    { type: 'mark-sent-failed', ids: ['n1'], error: 'throttled' },
    { type: 'conflict', sample: 0, retried: true },
    { type: 'deadline', samplesDone: 1, samplesPlanned: 4 },
  ] as unknown as RunEvent[];
}

describe('The custom metrics inventory (what the bill prices)', () => {
  it('drives every file of functions/ that publishes a metric, and none names a metric outside METRIC_NAMES', () => {
    const emitting = sourceFiles(FUNCTIONS)
      .filter((file) => /\.(addMetric|singleMetric)\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file).replaceAll('\\', '/'));
    expect(emitting.sort()).toEqual([...EMITTERS].sort());
    for (const file of emitting) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text, `${file} names a metric by a string literal`).not.toMatch(/addMetric\(\s*['"`]/);
    }
  });

  it('knows every metric (name and dimensions) the functions publish for every kind of event', () => {
    const seen = everySeries();
    expect(seen.length).toBeGreaterThan(0);
    const unknown = [
      ...new Set(
        seen.filter((s) => inventoryEntry(s.name, s.dimensions) === undefined).map((s) => s.key),
      ),
    ];
    expect(unknown).toEqual([]);
    for (const series of seen) expect(series.namespace).toBe('Telealert');
  });

  it('lists nothing the functions never publish, so the bill counts no metric that is not there', () => {
    const seen = new Set(everySeries().map((s) => s.key));
    const never = METRIC_INVENTORY.map((s) => seriesKey(s.name, s.dimensions)).filter(
      (key) => !seen.has(key),
    );
    expect(never).toEqual([]);
  });

  it('names, for every metric, the alarm or graph that needs it', () => {
    for (const series of METRIC_INVENTORY) {
      expect(Object.values(METRIC_NAMES)).toContain(series.name);
      expect(series.readBy).toMatch(/alarm|graph/);
    }
  });

  it('fails on a metric it does not know, as a new dimension value would be', () => {
    // The check above is only as good as this: an unknown state is a series it refuses.
    const dimensions = { service: 'telealert', source: 'live_calls', state: 'on-hold' };
    expect(inventoryEntry(METRIC_NAMES.callsByState, dimensions)).toBeUndefined();
    expect(
      inventoryEntry(METRIC_NAMES.callsByState, { ...dimensions, state: 'other' }),
    ).toBeDefined();
  });
});
