import { resolve } from 'node:path';
import { TelephonyClient } from '../../shared/api/client';
import { readsSource } from '../../shared/config/sources';
import { EnvTokenSource } from '../../shared/ports/env-token';
import { FileStateStore } from '../../shared/ports/file';
import type { PollFailure } from '../../shared/records/types';
import type { RunSummary } from '../../shared/runner/types';
import type { Config, SourceName } from '../../shared/types/config';
import { CliError, EXIT } from '../lib/errors';
import { loadUserConfig } from '../lib/files';
import { PrintingMessagePublisher, PrintingPublisher } from '../lib/format';
import type { Io } from '../lib/io';
import { LocalNotifier } from '../lib/notifier';
import type { CliOptions } from '../lib/options';
import { abortableSleep, pollOnSchedule, watchedSources } from '../lib/scheduler';
import { DEFAULT_STATE_FILE } from '../lib/where';
import { withBaseUrl } from './config-override';

/**
 * `--once` is one look at each source, now: the configured samples are spread over a whole
 * `every` (a minute), which a one-shot run from a shell or cron should not sit through.
 */
function oneSample(config: Config): Config {
  const liveCalls = Object.freeze({ ...config.sources.live_calls, samples: 1 });
  return Object.freeze({
    ...config,
    sources: Object.freeze({ ...config.sources, live_calls: liveCalls }),
  });
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * One stderr line per run: what was read, what failed and why, what was printed: the alert
 * events, and with `--messages` the messages people get (fewer: grouped, capped), counted
 * since the previous line (the notifier's clock prints between runs too).
 */
export function runLine(
  summary: RunSummary,
  failure: PollFailure | undefined,
  messages: number | undefined,
): string {
  const skipped = summary.skipped ? `, ${summary.skipped} skipped` : '';
  const failed = summary.failures
    ? `, ${summary.failures} failed poll(s)${failure ? ` (${failure.message})` : ''}`
    : '';
  const told =
    messages === undefined
      ? `${count(summary.sent, 'event')} printed`
      : `${count(summary.sent, 'event')} to the notifier, ${count(messages, 'message')} printed`;
  return (
    `poll: ${summary.source}: ${summary.samples} sample(s), ${summary.records} records` +
    `${skipped}${failed}, ${told}\n`
  );
}

/**
 * `telealert poll`: the deployed pollers' loop on this machine, against a real base URL, with
 * the token from TELEALERT_TOKEN and the alert state in a local file. With `--messages`, the
 * notifier runs in process (its state in the same file, its own clock beside the sources) and
 * the messages are printed instead of the events. With `--once`, exits 1
 * when a poll failed (the reason is on stderr; the alert state still counts the failure).
 */
export async function pollCommand(options: CliOptions, io: Io): Promise<number> {
  const loaded = loadUserConfig(options.config, io);
  const overridden = options['base-url']
    ? withBaseUrl(loaded.config, options['base-url'])
    : loaded.config;
  const config = options.once ? oneSample(overridden) : overridden;
  if (watchedSources(config).length === 0) {
    io.stderr('poll: the rules file has no rules, so there is nothing to poll\n');
    return EXIT.ok;
  }
  if (!io.env.TELEALERT_TOKEN?.trim()) {
    throw new CliError(
      'no API token: export TELEALERT_TOKEN=<the bearer token from the provider panel>',
      EXIT.invalid,
    );
  }
  const sleep = abortableSleep(io.stopSignal);
  const client = new TelephonyClient({
    baseUrl: config.api.baseUrl,
    tokenSource: new EnvTokenSource(io.env as NodeJS.ProcessEnv),
    timeZone: config.timezone,
    timeoutMs: config.api.timeoutMs,
    sleep,
  });
  const style = {
    json: !options.pretty,
    zone: config.timezone,
    colour: io.isTty && Boolean(options.pretty),
  };
  const statePath = resolve(io.cwd, options.state ?? DEFAULT_STATE_FILE);
  const store = new FileStateStore(statePath);
  // With --messages the notifier runs in process, its state beside the pollers' in the file.
  const printer = options.messages ? new PrintingMessagePublisher(io.stdout, style) : undefined;
  const notifier =
    printer === undefined
      ? undefined
      : new LocalNotifier({ config, store, publisher: printer, now: Date.now });
  let messagesCounted = 0;
  const publisher = notifier ?? new PrintingPublisher(io.stdout, style);
  // The client's failure messages name the endpoint and status, never the token.
  const lastFailure = new Map<SourceName, PollFailure>();
  let failedRuns = 0;
  await pollOnSchedule({
    config,
    client,
    store,
    publisher,
    ...(notifier === undefined ? {} : { notifier }),
    now: Date.now,
    signal: io.stopSignal,
    once: Boolean(options.once),
    observer: {
      event: (event) => {
        // Each source polls its own endpoint of the same name.
        if (event.type === 'fetch' && event.failure) lastFailure.set(event.endpoint, event.failure);
      },
    },
    onRun: (summary) => {
      if (summary.failures > 0) failedRuns += 1;
      // A source no rule reads asks nothing: a line only when it ended a removed rule's alert.
      if (summary.sent === 0 && !readsSource(config, summary.source)) return;
      const messages = printer === undefined ? undefined : printer.sent - messagesCounted;
      messagesCounted = printer?.sent ?? 0;
      io.stderr(runLine(summary, lastFailure.get(summary.source), messages));
      lastFailure.delete(summary.source);
    },
  });
  return options.once && failedRuns > 0 ? EXIT.failure : EXIT.ok;
}
