import type { AlertInstance, SourceState } from '../../shared/engine/types';
import { silenceFor } from '../../shared/notifier/silence';
import type { NotifierState } from '../../shared/notifier/types';
import { formatInZone } from '../../shared/time/zone';
import type { Config, Severity, SourceName } from '../../shared/types/config';
import { SOURCES } from '../../shared/types/config';
import { EXIT, UsageError } from '../lib/errors';
import { loadUserConfig } from '../lib/files';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';
import { nowOf } from '../lib/people';
import { peopleStores } from '../lib/where';
import { table } from './silence';

/** One alert as `telealert alerts` tells it (amtool's `alert query`). */
export interface AlertRow {
  readonly key: string;
  readonly rule: string;
  readonly source: SourceName;
  readonly severity: Severity;
  readonly state: 'pending' | 'firing';
  /** Since when: firing since it fired, pending since its condition first held (epoch ms). */
  readonly sinceMs: number;
  readonly acknowledgedBy?: string;
  /**
   * When an acknowledgement by call lapses (contract 6.1 rule 7): the alert, still firing, is
   * then told again and escalates. Absent: acknowledged until it resolves (or not at all).
   */
  readonly acknowledgedUntilMs?: number;
  /** The silence in force that matches it. */
  readonly silencedBy?: string;
}

function severityOf(config: Config, instance: AlertInstance): Severity {
  const rule = config.rules.find((candidate) => candidate.name === instance.rule);
  if (rule !== undefined) return rule.severity;
  // The built-ins: source_unavailable is critical, too_many_alerts at least a warning.
  return instance.rule === 'source_unavailable' ? 'critical' : 'warning';
}

/**
 * Firing and pending alerts of the engine's states, with who acknowledged each (the
 * notifier's) and the silence that holds it now. Firing first, then pending, oldest first.
 */
export function alertRows(
  config: Config,
  states: Partial<Record<SourceName, SourceState>>,
  notifier: NotifierState | undefined,
  nowMs: number,
): AlertRow[] {
  const rows: AlertRow[] = [];
  for (const source of SOURCES) {
    for (const instance of Object.values(states[source]?.alerts ?? {})) {
      const severity = severityOf(config, instance);
      const silence = silenceFor(
        notifier?.silences ?? [],
        { rule: instance.rule, severity, source, labels: instance.labels },
        nowMs,
      );
      const ack = notifier?.alerts?.[instance.key]?.ack;
      rows.push({
        key: instance.key,
        rule: instance.rule,
        source,
        severity,
        state: instance.state,
        sinceMs:
          instance.state === 'firing' ? (instance.firedAt ?? instance.activeAt) : instance.activeAt,
        ...(ack === undefined ? {} : { acknowledgedBy: ack.by }),
        ...(ack?.until === undefined ? {} : { acknowledgedUntilMs: ack.until }),
        ...(silence === undefined ? {} : { silencedBy: silence.id }),
      });
    }
  }
  const order = (row: AlertRow) => (row.state === 'firing' ? 0 : 1);
  return rows.sort(
    (a, b) => order(a) - order(b) || a.sinceMs - b.sinceMs || (a.key < b.key ? -1 : 1),
  );
}

/**
 * Who acknowledged the alert; for an acknowledgement by call, until when (or that it lapsed:
 * the notifier's next minute tells the alert again).
 */
function acknowledged(row: AlertRow, nowMs: number, zone: string): string {
  if (row.acknowledgedBy === undefined) return '-';
  const until = row.acknowledgedUntilMs;
  if (until === undefined) return row.acknowledgedBy;
  return until <= nowMs
    ? `${row.acknowledgedBy} (lapsed)`
    : `${row.acknowledgedBy} until ${formatInZone(until, zone)}`;
}

/**
 * `telealert alerts`: what is firing and pending now, from the local poll state (`--state`) or
 * the deployed stack's table (`--stack`),
 * with since-when, who acknowledged it (until when, by call) and which silence holds it.
 * `--json`: one object a line.
 */
export async function alertsCommand(options: CliOptions, io: Io): Promise<number> {
  const { config } = loadUserConfig(options.config, io);
  if (options.rule !== undefined && !config.rules.some((rule) => rule.name === options.rule)) {
    throw new UsageError(`--rule ${options.rule}: no such rule in the rules file`);
  }
  const nowMs = nowOf(io);
  const stores = await peopleStores(options, io, 'alerts');
  const states: Partial<Record<SourceName, SourceState>> = {};
  for (const source of SOURCES) {
    const stored = await stores.state.load(source);
    if (stored.state !== undefined) states[source] = stored.state;
  }
  const { state: notifier } = await stores.notifier.loadNotifier();
  const rows = alertRows(config, states, notifier, nowMs).filter(
    (row) => options.rule === undefined || row.rule === options.rule,
  );
  if (options.json) {
    for (const row of rows) {
      const { sinceMs, acknowledgedUntilMs, ...rest } = row;
      const until =
        acknowledgedUntilMs === undefined
          ? {}
          : {
              acknowledgedUntil: new Date(acknowledgedUntilMs).toISOString(),
              ...(acknowledgedUntilMs <= nowMs ? { acknowledgementLapsed: true } : {}),
            };
      io.stdout(
        `${JSON.stringify({ ...rest, ...until, since: new Date(sinceMs).toISOString() })}\n`,
      );
    }
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stderr('telealert: no firing or pending alerts\n');
    return EXIT.ok;
  }
  io.stdout(
    table([
      ['ALERT', 'STATE', 'SEVERITY', 'SINCE', 'ACKNOWLEDGED', 'SILENCED'],
      ...rows.map((row) => [
        row.key,
        row.state,
        row.severity,
        formatInZone(row.sinceMs, config.timezone),
        acknowledged(row, nowMs, config.timezone),
        row.silencedBy ?? '-',
      ]),
    ]),
  );
  return EXIT.ok;
}
