/** Backoff and retry-time arithmetic for the client; pure, the clock and dice are parameters. */

export interface BackoffOptions {
  /** First retry waits up to this long. @default 200 */
  readonly baseMs: number;
  /** No single wait is longer. @default 5000 */
  readonly capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, capMs: 5_000 };

/**
 * "Full jitter" exponential backoff: a uniform wait in `[0, min(cap, base * 2^retry))`, so
 * many pollers that failed together do not retry together. `retry` counts from 0.
 */
export function backoffDelay(retry: number, options: BackoffOptions, random: () => number): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * A `Retry-After` header as milliseconds to wait: delay-seconds (`"120"`, `"1.5"`) or an HTTP
 * date (a date already past means 0). `undefined` when absent or unreadable.
 */
export function parseRetryAfter(
  header: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date names a weekday and month; bare numbers like "-5" are not dates.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

const BODY_FIELDS = ['retry_after', 'retryAfter', 'retry_after_seconds', 'retry_in'] as const;

/**
 * A retry time in a JSON error body (`{"retry_after": 30}`, also `"30"` or an HTTP date), as
 * milliseconds. `undefined` when the body names none.
 */
export function retryAfterFromBody(body: unknown, nowMs: number): number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  for (const field of BODY_FIELDS) {
    const value = record[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
      return Math.ceil(value * 1000);
    }
    if (typeof value === 'string') {
      const parsed = parseRetryAfter(value, nowMs);
      if (parsed !== undefined) return parsed;
    }
  }
  return undefined;
}
