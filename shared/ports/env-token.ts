import type { TokenSource } from '../api/types';
import { TokenUnavailableError } from './errors';

/**
 * The local `TokenSource`: the environment variable `TELEALERT_TOKEN` (`telealert poll`).
 * Read on every `get`, so a token exported again is picked up after a rejection.
 */
export class EnvTokenSource implements TokenSource {
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly variable = 'TELEALERT_TOKEN',
  ) {}

  async get(): Promise<string> {
    const token = this.env[this.variable]?.trim();
    if (!token) {
      throw new TokenUnavailableError(
        `no API token: set the environment variable ${this.variable} to the bearer token`,
      );
    }
    return token;
  }

  invalidate(): void {}
}
