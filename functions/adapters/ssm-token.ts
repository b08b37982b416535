import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { SSMClient } from '@aws-sdk/client-ssm';
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
}

/**
 * The deployed `TokenSource`: the SSM SecureString, decrypted, cached by Powertools Parameters
 * for several minutes. After `invalidate` (the API rejected the token) the next `get` bypasses
 * the cache, so a token rotated in SSM works on the next request. Errors name the parameter,
 * never its value.
 */
export class SsmTokenSource implements TokenSource {
  readonly #provider: SSMProvider;
  readonly #name: string;
  readonly #maxAge: number;
  #forceFetch = false;
  /** A read under way: concurrent gets (the handler's early fetch, the client's) share it. */
  #inflight: Promise<string> | undefined;

  constructor(options: SsmTokenSourceOptions) {
    this.#provider = new SSMProvider({ awsSdkV3Client: options.client });
    this.#name = options.parameterName;
    this.#maxAge = options.maxAgeSeconds ?? 900;
  }

  get(): Promise<string> {
    if (this.#inflight) return this.#inflight;
    const read: Promise<string> = this.#read(this.#forceFetch).finally(() => {
      if (this.#inflight === read) this.#inflight = undefined;
    });
    this.#inflight = read;
    return read;
  }

  async #read(forceFetch: boolean): Promise<string> {
    // Cleared now, not when the read ends: an invalidate() that arrives while this read is
    // under way sets it again and is not lost.
    this.#forceFetch = false;
    let token: string | undefined;
    try {
      token = await this.#provider.get(this.#name, {
        decrypt: true,
        maxAge: this.#maxAge,
        forceFetch,
      });
    } catch (error) {
      if (forceFetch) this.#forceFetch = true;
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
    return token.trim();
  }

  /** The API rejected the token: the next read bypasses the cache, and does not join a read
   * started before (that one may return the rejected token). */
  invalidate(): void {
    this.#forceFetch = true;
    this.#inflight = undefined;
  }
}

/** The cause's kind and message (an SDK error says what failed; it never carries the value). */
function describe(error: unknown): string {
  const root = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return root instanceof Error ? `${root.name}: ${root.message}` : String(root);
}
