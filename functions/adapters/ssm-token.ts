import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { TokenUnavailableError } from '../../shared/ports/errors';
import type { TokenSource } from '../../shared/ports/types';

export interface SsmTokenSourceOptions {
  readonly client: SSMClient;
  /** The SecureString's name (`api.tokenParameter` in the rules file). */
  readonly parameterName: string;
  /**
   * How long a fetched token is reused across invocations. Longer than the 5-minute payments
   * schedule, so a warm run never reads SSM; a rotated token is still picked up at once,
   * because a rejected token is fetched again. @default 900 (15 minutes)
   */
  readonly maxAgeSeconds?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The deployed `TokenSource`: the SSM SecureString, decrypted, cached for several minutes.
 * Concurrent `get`s share one request, so the handler can start the fetch while the state
 * loads and the client's own `get` waits for that same request. After `invalidate` (the API
 * rejected the token) the next `get` bypasses the cache, so a token rotated in SSM works on the
 * next request; a failed fetch is not cached, so the next `get` retries. Errors name the
 * parameter, never its value.
 */
export class SsmTokenSource implements TokenSource {
  readonly #client: SSMClient;
  readonly #name: string;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #cached: { readonly token: string; readonly fetchedAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(options: SsmTokenSourceOptions) {
    this.#client = options.client;
    this.#name = options.parameterName;
    this.#maxAgeMs = (options.maxAgeSeconds ?? 900) * 1000;
    this.#now = options.now ?? (() => Date.now());
  }

  get(): Promise<string> {
    const cached = this.#cached;
    if (cached && this.#now() - cached.fetchedAt < this.#maxAgeMs) {
      return Promise.resolve(cached.token);
    }
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  invalidate(): void {
    this.#cached = undefined;
  }

  async #fetch(): Promise<string> {
    let token: string | undefined;
    try {
      const answer = await this.#client.send(
        new GetParameterCommand({ Name: this.#name, WithDecryption: true }),
      );
      token = answer.Parameter?.Value;
    } catch (error) {
      throw new TokenUnavailableError(
        `cannot read the API token from SSM parameter ${this.#name}: ${describe(error)}`,
        { cause: error },
      );
    }
    if (typeof token !== 'string' || token.trim() === '') {
      throw new TokenUnavailableError(
        `the SSM parameter ${this.#name} is empty: store the API's bearer token in it`,
      );
    }
    const trimmed = token.trim();
    this.#cached = { token: trimmed, fetchedAt: this.#now() };
    return trimmed;
  }
}

/** The cause's kind and message (an SDK error says what failed; it never carries the value). */
function describe(error: unknown): string {
  const root = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return root instanceof Error ? `${root.name}: ${root.message}` : String(root);
}
