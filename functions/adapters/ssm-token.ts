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
    this.#inflight ??= this.#read().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #read(): Promise<string> {
    let token: string | undefined;
    try {
      token = await this.#provider.get(this.#name, {
        decrypt: true,
        maxAge: this.#maxAge,
        forceFetch: this.#forceFetch,
      });
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
    this.#forceFetch = false;
    return token.trim();
  }

  invalidate(): void {
    this.#forceFetch = true;
  }
}

/** The cause's kind and message (an SDK error says what failed; it never carries the value). */
function describe(error: unknown): string {
  const root = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return root instanceof Error ? `${root.name}: ${root.message}` : String(root);
}
