import { BatchReader } from '../records/parse';
import type { ParsedBatch, PollFailure } from '../records/types';
import { assertTimeZone, DEFAULT_TIME_ZONE } from '../time/zone';
import {
  ApiAuthError,
  ApiBodyError,
  type ApiError,
  ApiNetworkError,
  ApiRateLimitError,
  ApiTimeoutError,
  UnreadableBodyError,
} from './errors';
import { rowSink } from './json-array';
import { Redactor } from './redact';
import { fail, interpretAnswer, type Outcome } from './response';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './retry';
import { fetchHttpGet, type HttpGet, nodeHttpGet } from './transport';
import type { ApiRequest, Endpoint, LiveCallsQuery, PaymentsQuery, TokenSource } from './types';
import { requestUrl, validateBaseUrl } from './url';

/** One attempt, for metrics (`ApiLatency`, `ApiErrors`). Never carries the token. */
export interface AttemptEvent {
  readonly endpoint: Endpoint;
  /** 1 for the first attempt of a request. */
  readonly attempt: number;
  readonly status?: number;
  readonly durationMs: number;
  readonly outcome: 'ok' | PollFailure['kind'];
}

export interface TelephonyClientOptions {
  /** https, or http for loopback hosts only (see `validateBaseUrl`). */
  readonly baseUrl: string;
  readonly tokenSource: TokenSource;
  /** IANA zone of the API's timestamps. @default 'Asia/Kolkata' */
  readonly timeZone?: string;
  /** Per attempt, body included. @default 10000 */
  readonly timeoutMs?: number;
  /** Attempts per request for 5xx, network errors, timeouts and 429, the first included. @default 4 */
  readonly maxAttempts?: number;
  /** @default { baseMs: 200, capMs: 5000 } */
  readonly backoff?: BackoffOptions;
  /** A retry is only worth starting with at least this much of the budget left. @default 250 */
  readonly minAttemptMs?: number;
  /** The HTTP transport. @default nodeHttpGet (node:http and node:https) */
  readonly transport?: HttpGet;
  /** Shorthand for `transport: fetchHttpGet(fetch)`; `transport` wins when both are given. */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Waits between attempts; given the request's signal, a wait ends when it aborts.
   * @default setTimeout-based, ended by the signal
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Called after every attempt; its errors are ignored. */
  readonly observer?: (event: AttemptEvent) => void;
}

export interface RequestOptions {
  /** Epoch ms by which the request must be over, retries and waits included. */
  readonly deadlineMs: number;
  /** Cancels the request (not retried). */
  readonly signal?: AbortSignal;
  /** The record fields something reads: passed to `parseRecords` (`ParseOptions.fields`). */
  readonly fields?: ReadonlySet<string>;
}

const MAX_REASON = 120;

/**
 * The one client of the telephony API. Retries 5xx, network errors, timeouts and 429 with
 * full-jitter exponential backoff (a 429's own retry time when it gives one) inside the
 * caller's deadline, never sleeping past it. A 401/403 invalidates the token source and is
 * retried once, only when a fresh read gives a different token. Every failure is an
 * `ApiError`; the token appears in no error, reason, cause or observer event.
 */
export class TelephonyClient {
  readonly #base: string;
  readonly #tokens: TokenSource;
  readonly #zone: string;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #backoff: BackoffOptions;
  readonly #minAttemptMs: number;
  readonly #get: HttpGet;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #observer: ((event: AttemptEvent) => void) | undefined;
  /** Every token this client has held, so a rotated one is redacted too. */
  readonly #secrets = new Redactor();

  /** @throws ApiConfigError for an unusable base URL; TimeZoneError for an unknown zone. */
  constructor(options: TelephonyClientOptions) {
    this.#base = validateBaseUrl(options.baseUrl);
    this.#tokens = options.tokenSource;
    this.#zone = options.timeZone ?? DEFAULT_TIME_ZONE;
    assertTimeZone(this.#zone);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#minAttemptMs = options.minAttemptMs ?? 250;
    this.#get = options.transport ?? (options.fetch ? fetchHttpGet(options.fetch) : nodeHttpGet);
    this.#sleep = options.sleep ?? waitUnlessAborted;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#observer = options.observer;
  }

  /** `GET /v1/live_calls` with optional filters. */
  liveCalls(query: LiveCallsQuery, options: RequestOptions): Promise<ParsedBatch> {
    return this.request({ endpoint: 'live_calls', query }, options);
  }

  /** `GET /v1/billing/payments/online` with optional date range and amount comparison. */
  payments(query: PaymentsQuery, options: RequestOptions): Promise<ParsedBatch> {
    return this.request({ endpoint: 'payments', query }, options);
  }

  /**
   * Performs one planned request and parses the answer.
   *
   * @throws ApiError subclasses (see `errors.ts`); `ApiQueryError` before any network use for
   *   a query the API would refuse. Errors of the token source itself propagate unchanged.
   */
  async request(request: ApiRequest, options: RequestOptions): Promise<ParsedBatch> {
    const { endpoint } = request;
    const url = requestUrl(this.#base, request);
    let token = await this.#token();
    let authRetried = false;
    let attempts = 0;
    let retries = 0;
    let last: ApiError | undefined;
    for (;;) {
      const remaining = options.deadlineMs - this.#now();
      if (remaining <= 0) {
        throw (
          last ??
          new ApiTimeoutError({ endpoint, reason: 'no time left before the deadline', attempts })
        );
      }
      attempts += 1;
      const outcome = await this.#attempt(endpoint, url, token, remaining, attempts, options);
      if (outcome.ok) return outcome.batch;
      last = outcome.error;
      if (last instanceof ApiAuthError) {
        if (authRetried) throw last;
        authRetried = true;
        this.#tokens.invalidate();
        const fresh = await this.#token();
        if (fresh === token) throw last;
        token = fresh;
        continue;
      }
      if (!outcome.retry || retries + 1 >= this.#maxAttempts) throw last;
      const asked = last instanceof ApiRateLimitError ? last.retryAfterMs : undefined;
      const delay = asked ?? backoffDelay(retries, this.#backoff, this.#random);
      if (this.#now() + delay + this.#minAttemptMs > options.deadlineMs) throw last;
      retries += 1;
      // A caller that gives up (Ctrl-C, a sibling source's failure) ends the wait, and the retry.
      await this.#sleep(delay, options.signal);
      if (options.signal?.aborted) throw last;
    }
  }

  async #token(): Promise<string> {
    const token = (await this.#tokens.get()).trim();
    this.#secrets.add(token);
    return token;
  }

  async #attempt(
    endpoint: Endpoint,
    url: string,
    token: string,
    remainingMs: number,
    attempt: number,
    options: RequestOptions,
  ): Promise<Outcome> {
    const started = this.#now();
    const timeoutMs = Math.min(this.#timeoutMs, remainingMs);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const failure = { endpoint, attempts: attempt };
    let status: number | undefined;
    let outcome: Outcome;
    if (token === '') {
      outcome = fail(new ApiAuthError({ ...failure, reason: 'the token is empty' }));
    } else {
      const rows = new BatchReader(
        endpoint,
        this.#zone,
        options.fields === undefined ? {} : { fields: options.fields },
      );
      const answer = await this.#send(url, token, signal, endpoint, rows).catch(
        (error: unknown) => {
          if (error instanceof UnreadableBodyError) {
            status = error.status;
            const reason = this.#redact(error.message).slice(0, MAX_REASON);
            return fail(
              new ApiBodyError({ ...failure, status, reason, cause: this.#cleanCause(error) }),
            );
          }
          if (timeout.aborted) {
            const reason = `no answer within ${timeoutMs} ms`;
            return fail(new ApiTimeoutError({ ...failure, reason }), true);
          }
          if (options.signal?.aborted) {
            return fail(new ApiTimeoutError({ ...failure, reason: 'cancelled by the caller' }));
          }
          const cause = this.#cleanCause(error);
          return fail(
            new ApiNetworkError({ ...failure, reason: this.#describe(error), cause }),
            true,
          );
        },
      );
      if ('body' in answer) {
        status = answer.status;
        outcome = interpretAnswer(answer.status, answer.header('retry-after'), answer.body, {
          ...failure,
          zone: this.#zone,
          ...(options.fields === undefined ? {} : { fields: options.fields }),
          rows,
          nowMs: this.#now(),
          redact: (text) => this.#redact(text),
        });
      } else {
        outcome = answer;
      }
    }
    this.#observe({
      endpoint,
      attempt,
      ...(status === undefined ? {} : { status }),
      durationMs: this.#now() - started,
      outcome: outcome.ok ? 'ok' : outcome.error.kind,
    });
    return outcome;
  }

  /** The transport alone: throws on a network failure, a timeout or a cancel. */
  #send(url: string, token: string, signal: AbortSignal, endpoint: Endpoint, rows: BatchReader) {
    // The timeout covers the body too: a server that sends headers and then hangs is caught.
    // The transport never follows a redirect: one could carry the bearer token to another host.
    // The rows are read a piece at a time as the body is parsed, while they are in cache.
    return this.#get(
      url,
      { accept: 'application/json', authorization: `Bearer ${token}` },
      signal,
      rowSink(endpoint, rows),
    );
  }

  #describe(error: unknown): string {
    // node:http puts the system error's code on the error, fetch on its cause.
    const code = errorCode(error) ?? (error instanceof Error ? errorCode(error.cause) : undefined);
    const message = error instanceof Error ? error.message : String(error);
    const withCode = code && !message.includes(code) ? `${message} (${code})` : message;
    return this.#redact(withCode).slice(0, MAX_REASON);
  }

  /** A copy of an error with the token scrubbed: the original may hold it in any property. */
  #cleanCause(error: unknown): Error {
    const clean = new Error(this.#redact(error instanceof Error ? error.message : String(error)));
    clean.name = error instanceof Error ? error.name : 'Error';
    clean.stack = this.#redact(clean.stack ?? '');
    return clean;
  }

  #redact(text: string): string {
    return this.#secrets.redact(text);
  }

  #observe(event: AttemptEvent): void {
    try {
      this.#observer?.(event);
    } catch {
      // Metrics must never fail a poll.
    }
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `ms` of waiting that ends early, without error, when `signal` aborts. */
function waitUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
