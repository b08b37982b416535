import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseConfig } from '../../shared/config/load';
import { configWarnings } from '../../shared/config/warnings';
import type { Config } from '../../shared/types/config';
import { CliError, EXIT } from './errors';
import type { Io } from './io';

export const DEFAULT_CONFIG_FILE = 'telealert.yaml';

/** Reads a text file the user named; a missing or unreadable file is invalid input (exit 2). */
export function readUserFile(path: string, io: Io, what: string): string {
  try {
    return readFileSync(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : 'cannot be read';
    throw new CliError(`${path}: ${reason} (the ${what})`, EXIT.invalid, { cause: error });
  }
}

/** Loads and validates the rules file named by --config (default telealert.yaml). */
export function loadUserConfig(path: string | undefined, io: Io): { config: Config; file: string } {
  const file = path ?? DEFAULT_CONFIG_FILE;
  const text = readUserFile(file, io, 'rules file; pass --config or see docs/rules.md');
  const config = parseConfig(text, file);
  // Warnings go to stderr, so `validate` still exits 0 and replay's stdout stays JSON Lines.
  for (const warning of configWarnings(config)) {
    io.stderr(`${file}: ${warning.path}: warning: ${warning.message}
`);
  }
  return { config, file };
}
