import { resolve } from 'node:path';
import { TelephonyClient } from '../../shared/api/client';
import { EnvTokenSource } from '../../shared/ports/env-token';
import { FileStateStore } from '../../shared/ports/file';
import { CliError, EXIT } from '../errors';
import { loadUserConfig } from '../files';
import { PrintingPublisher } from '../format';
import type { Io } from '../io';
import type { CliOptions } from '../main';
import { abortableSleep, pollOnSchedule } from '../scheduler';
import { withBaseUrl } from './config-override';

const DEFAULT_STATE_FILE = '.telealert/state.json';

/**
 * `telealert poll`: the deployed pollers' loop on this machine, against a real base URL, with
 * the token from TELEALERT_TOKEN and the alert state in a local file.
 */
export async function pollCommand(options: CliOptions, io: Io): Promise<number> {
  const loaded = loadUserConfig(options.config, io);
  const config = options['base-url']
    ? withBaseUrl(loaded.config, options['base-url'])
    : loaded.config;
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
  const publisher = new PrintingPublisher(io.stdout, {
    json: !options.pretty,
    zone: config.timezone,
    colour: io.isTty && Boolean(options.pretty),
  });
  const statePath = resolve(io.cwd, options.state ?? DEFAULT_STATE_FILE);
  let failedRuns = 0;
  await pollOnSchedule({
    config,
    client,
    store: new FileStateStore(statePath),
    publisher,
    now: Date.now,
    sleep,
    signal: io.stopSignal,
    once: Boolean(options.once),
    onRun: (summary) => {
      if (summary.failures > 0) failedRuns += 1;
      io.stderr(
        `poll: ${summary.source}: ${summary.samples} sample(s), ${summary.records} records` +
          `${summary.skipped ? `, ${summary.skipped} skipped` : ''}` +
          `${summary.failures ? `, ${summary.failures} failed poll(s)` : ''}, ${summary.sent} sent\n`,
      );
    },
  });
  return options.once && failedRuns > 0 ? EXIT.failure : EXIT.ok;
}
