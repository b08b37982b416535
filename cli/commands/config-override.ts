import { validateBaseUrl } from '../../shared/api/url';
import type { Config } from '../../shared/types/config';
import { CliError, EXIT } from '../lib/errors';

/** The rules file with `api.baseUrl` replaced (`--base-url`, or the demo's simulator). */
export function withBaseUrl(config: Config, baseUrl: string): Config {
  let checked: string;
  try {
    checked = validateBaseUrl(baseUrl);
  } catch (error) {
    throw new CliError(`--base-url: ${(error as Error).message}`, EXIT.invalid, { cause: error });
  }
  return Object.freeze({ ...config, api: Object.freeze({ ...config.api, baseUrl: checked }) });
}
