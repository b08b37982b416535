import { EXIT } from '../errors';
import { loadUserConfig } from '../files';
import type { Io } from '../io';
import type { CliOptions } from '../main';

/** `telealert validate`: exit 0 with a one-line summary, or 2 with every error. */
export async function validateCommand(options: CliOptions, io: Io): Promise<number> {
  const { config, file } = loadUserConfig(options.config, io);
  const channels = Object.keys(config.channels).length;
  io.stdout(
    `${file}: ok (${config.rules.length} rules, ${channels} channels, timezone ${config.timezone})\n`,
  );
  return EXIT.ok;
}
