import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { TokenSource } from '../../shared/api/types';
import { TokenUnavailableError } from '../../shared/ports/errors';

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
  /** The clock the cache's age is read on, in epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** A fetched token and until when it is reused. */
interface Cached {
  readonly token: string;
  readonly expiresAtMs: number;
}

/**
 * The deployed `TokenSource`: the SSM SecureString, decrypted, reused for several minutes (one
 * `GetParameter` per container and age; what Powertools Parameters did here, in a few lines
 * instead of 12 KB of every poller's bundle). `invalidate` (the API rejected the token) drops
 * the cached token, so the next `get` reads SSM and a token rotated there works on the next
 * request; the rejected one is never served again, even when that read fails. A failed or
 * empty read is never cached: the next `get` asks again. Errors name the parameter, never its
 * value.
 */
export class SsmTokenSource implements TokenSource {
  readonly #client: SSMClient;
  readonly #name: string;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #cached: Cached | undefined;
  /** Counts invalidations: a read started before the last one must not cache what it got. */
  #generation = 0;
  /** A read under way: concurrent gets (the handler's early fetch, the client's) share it. */
  #inflight: Promise<string> | undefined;

  constructor(options: SsmTokenSourceOptions) {
    this.#client = options.client;
    this.#name = options.parameterName;
    this.#maxAgeMs = (options.maxAgeSeconds ?? 900) * 1000;
    this.#now = options.now ?? (() => Date.now());
  }

  get(): Promise<string> {
    if (this.#inflight) return this.#inflight;
    const read: Promise<string> = this.#read().finally(() => {
      if (this.#inflight === read) this.#inflight = undefined;
    });
    this.#inflight = read;
    return read;
  }

  async #read(): Promise<string> {
    const cached = this.#cached;
    if (cached !== undefined && this.#now() < cached.expiresAtMs) {
      return cached.token;
    }
    const generation = this.#generation;
    let value: string | undefined;
    try {
      const output = await this.#client.send(
        new GetParameterCommand({ Name: this.#name, WithDecryption: true }),
      );
      value = output.Parameter?.Value;
    } catch (error) {
      throw new TokenUnavailableError(
        `cannot read the API token from SSM parameter ${this.#name}: ${describe(error)}`,
        { cause: error },
      );
    }
    const token = value?.trim() ?? '';
    if (token === '') {
      throw new TokenUnavailableError(
        `the SSM parameter ${this.#name} is empty: store the API's bearer token in it`,
      );
    }
    if (generation === this.#generation) {
      this.#cached = { token, expiresAtMs: this.#now() + this.#maxAgeMs };
    }
    return token;
  }

  /** The API rejected the token: it leaves the cache, and the next read does not join a read
   * started before (that one may return the rejected token, and caches nothing). */
  invalidate(): void {
    this.#cached = undefined;
    this.#generation += 1;
    this.#inflight = undefined;
  }
}

/** The cause's kind and message (an SDK error says what failed; it never carries the value). */
function describe(error: unknown): string {
  const root = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return root instanceof Error ? `${root.name}: ${root.message}` : String(root);
}
