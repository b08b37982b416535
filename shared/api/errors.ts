import type { PollFailure } from '../records/types';
import type { Endpoint } from './types';

/** The configured base URL cannot be used (not a URL, not https, credentials in it). */
export class ApiConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApiConfigError';
  }
}

interface ApiErrorInit {
  readonly endpoint: Endpoint;
  readonly reason: string;
  readonly status?: number;
  /** Attempts made before giving up. */
  readonly attempts?: number;
  readonly cause?: unknown;
}

/**
 * Base of every failure of a request to the API. Carries the endpoint, the HTTP status when
 * there was one and a short reason; never the token (the client redacts it from reasons and
 * causes before they get here).
 */
export abstract class ApiError extends Error {
  abstract readonly kind: PollFailure['kind'];
  readonly endpoint: Endpoint;
  readonly status: number | undefined;
  readonly reason: string;
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    super(
      `${init.endpoint}: ${init.status === undefined ? '' : `HTTP ${init.status}: `}${init.reason}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'ApiError';
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.reason = init.reason;
    this.attempts = init.attempts ?? 1;
  }

  /** Plain data for the engine, timelines and state. */
  toPollFailure(): PollFailure {
    return this.status === undefined
      ? { kind: this.kind, message: this.message }
      : { kind: this.kind, status: this.status, message: this.message };
  }
}

/** 401/403: the token was rejected (and a fresh read of it did not help). */
export class ApiAuthError extends ApiError {
  readonly kind = 'auth' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiAuthError';
  }
}

/** Any other unsuccessful status (5xx after the retries, 4xx, an unexpected redirect). */
export class ApiHttpError extends ApiError {
  readonly kind = 'http' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiHttpError';
  }
}

/** No answer within the per-request timeout, or no time left in the caller's budget. */
export class ApiTimeoutError extends ApiError {
  readonly kind = 'timeout' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiTimeoutError';
  }
}

/** The connection failed (refused, reset, DNS). */
export class ApiNetworkError extends ApiError {
  readonly kind = 'network' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiNetworkError';
  }
}

/** A successful status with a body that is not a JSON array (HTML page, object, truncated). */
export class ApiBodyError extends ApiError {
  readonly kind = 'body' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiBodyError';
  }
}

/** 429 with no retry time that fits in the budget. */
export class ApiRateLimitError extends ApiError {
  readonly kind = 'rate-limited' as const;
  /** The wait the API asked for, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(init: ApiErrorInit & { readonly retryAfterMs?: number }) {
    super(init);
    this.name = 'ApiRateLimitError';
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** A query the API would refuse (only one of `amount`/`operator`, a malformed date). */
export class ApiQueryError extends ApiError {
  readonly kind = 'http' as const;
  constructor(init: ApiErrorInit) {
    super(init);
    this.name = 'ApiQueryError';
  }
}

/**
 * The transport could not decode a successful answer's body (an unknown or corrupt content
 * encoding, found as it streamed in or once whole): the answer came, so it is the body that is
 * wrong, not the network. An error answer's undecodable body is read as empty instead.
 */
export class UnreadableBodyError extends Error {
  readonly status: number;

  constructor(status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnreadableBodyError';
    this.status = status;
  }
}
