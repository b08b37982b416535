import { EXIT } from '../lib/errors';
import { loadUserConfig } from '../lib/files';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';

/** `1 rule`, `2 rules`. */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `telealert validate`: exit 0 with a one-line summary, or 2 with every error. */
export async function validateCommand(options: CliOptions, io: Io): Promise<number> {
  const { config, file } = loadUserConfig(options.config, io);
  const rules = counted(config.rules.length, 'rule');
  const channels = counted(Object.keys(config.channels).length, 'channel');
  io.stdout(`${file}: ok (${rules}, ${channels}, timezone ${config.timezone})\n`);
  return EXIT.ok;
}
