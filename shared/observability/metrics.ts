/**
 * The names the runtime's metrics are emitted under and the stack's alarms and dashboard read:
 * one list for both sides, since `infra/` may not import `functions/`. Every distinct name and
 * dimension set is a custom metric CloudWatch bills by the month (issue 29), so the functions
 * publish a metric only where an alarm or a graph needs one; the rest of what they observe
 * goes to the logs, which the dashboard reads with Logs Insights ([Decisions](../../docs/decisions.md#the-bill)).
 */
import { SOURCES, type SourceName } from '../types/config';

/** CloudWatch namespace of the functions' EMF metrics. */
export const METRIC_NAMESPACE = 'Telealert';

/** Powertools' service name; Powertools adds it to every metric's dimensions. */
export const SERVICE_NAME = 'telealert';

export const METRIC_NAMES = {
  /** A poll whose state was committed, per source: the dead-man's switch watches it. */
  pollSucceeded: 'PollSucceeded',
  /** A failed poll, per source: published only in the hours a poll fails. */
  pollFailed: 'PollFailed',
  /** Live calls by state (dimension `state`, one of `CALL_STATES`): "Calls by state", "Ringing calls". */
  callsByState: 'CallsByState',
  /**
   * Messages owed to a channel with no topic (a deploy removed or renamed it), dropped from
   * what is owed and logged whole (contract 6.1 rule 8): published only when it happens.
   */
  messagesUndeliverable: 'MessagesUndeliverable',
} as const;

export type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];

/**
 * The call states `CallsByState` tells apart; any other state the API sends is counted as
 * `other`. The API's `state` is free text: as a dimension each new value would be another
 * metric billed every month (500 states, 500 metrics), so the set is fixed here.
 */
export const CALL_STATES = ['ringing', 'answered', 'other'] as const;
export type CallState = (typeof CALL_STATES)[number];

/** A state as the API wrote it (any case, any word) folded into `CALL_STATES`. */
export function callState(state: unknown): CallState {
  const word = typeof state === 'string' ? state.trim().toLowerCase() : '';
  return (CALL_STATES as readonly string[]).includes(word) ? (word as CallState) : 'other';
}

/** When a series is published, which is what it is billed for (by the hour). */
export const PUBLISHED = {
  /** At every run of its function: a whole month's metric. */
  everyRun: 'every run',
  /** Only in the hours something happens (a failure): nothing in a quiet month. */
  whenItHappens: 'when it happens',
} as const;
export type Published = (typeof PUBLISHED)[keyof typeof PUBLISHED];

/** One custom metric: a name and its full dimension set, as the EMF document declares it. */
export interface MetricSeries {
  readonly name: MetricName;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly published: Published;
  /** The alarm or dashboard graph that needs it: the reason it is a metric at all. */
  readonly readBy: string;
}

const dims = (source: SourceName | 'notifier', extra: Record<string, string> = {}) => ({
  service: SERVICE_NAME,
  source,
  ...extra,
});

/**
 * Every custom metric the functions may publish (a test holds the functions to it, and the
 * bench prices what they really emit against it). To add one: its name in `METRIC_NAMES`, its
 * series here with the alarm or graph that reads it, and the bill's budget still met.
 */
export const METRIC_INVENTORY: readonly MetricSeries[] = [
  ...SOURCES.map(
    (source): MetricSeries => ({
      name: METRIC_NAMES.pollSucceeded,
      dimensions: dims(source),
      published: PUBLISHED.everyRun,
      readBy: `alarm DeadMansSwitch-${source}; graph "Poll health"`,
    }),
  ),
  ...SOURCES.map(
    (source): MetricSeries => ({
      name: METRIC_NAMES.pollFailed,
      dimensions: dims(source),
      published: PUBLISHED.whenItHappens,
      readBy: 'graph "Poll health"',
    }),
  ),
  {
    name: METRIC_NAMES.messagesUndeliverable,
    dimensions: dims('notifier'),
    published: PUBLISHED.whenItHappens,
    readBy: 'alarm MessagesUndeliverable',
  },
  ...CALL_STATES.map(
    (state): MetricSeries => ({
      name: METRIC_NAMES.callsByState,
      dimensions: dims('live_calls', { state }),
      published: PUBLISHED.everyRun,
      readBy:
        state === 'ringing' ? 'graphs "Calls by state", "Ringing calls"' : 'graph "Calls by state"',
    }),
  ),
];

/** `Name{a=1,b=2}` with the dimensions in name order: one key per billed metric. */
export function seriesKey(name: string, dimensions: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(dimensions)
    .sort()
    .map((key) => `${key}=${dimensions[key]}`);
  return `${name}{${pairs.join(',')}}`;
}

/** The inventory's entry for a series the functions emitted, if it has one. */
export function inventoryEntry(
  name: string,
  dimensions: Readonly<Record<string, string>>,
): MetricSeries | undefined {
  const key = seriesKey(name, dimensions);
  return METRIC_INVENTORY.find((series) => seriesKey(series.name, series.dimensions) === key);
}

/**
 * The notifier's log message for each handoff it decides (contract section 8), with `channel`,
 * `oncall` and `until`: the dashboard's "Who is on call" widget queries it with Logs Insights.
 */
export const HANDOFF_LOG_MESSAGE = 'handoff';
