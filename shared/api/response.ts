import { NotAnArrayError } from '../records/errors';
import { BatchReader } from '../records/parse';
import type { ParsedBatch } from '../records/types';
import type { SourceName } from '../types/config';
import {
  ApiAuthError,
  ApiBodyError,
  type ApiError,
  ApiHttpError,
  ApiRateLimitError,
} from './errors';
import type { StreamedBody } from './json-array';
import { parseRetryAfter, retryAfterFromBody } from './retry';

/** What one answered attempt means: records, or an error and whether to try again. */
export type Outcome =
  | { readonly ok: true; readonly batch: ParsedBatch }
  | { readonly ok: false; readonly error: ApiError; readonly retry: boolean };

/** What the interpretation needs besides the answer itself. */
export interface AnswerContext {
  readonly endpoint: SourceName;
  readonly attempts: number;
  readonly zone: string;
  /** Passed to `parseRecords`: the fields something reads. */
  readonly fields?: ReadonlySet<string>;
  /**
   * The reader the transport pushed the answer's rows to as they were parsed; absent, the
   * rows are read from the whole body.
   */
  readonly rows?: BatchReader;
  readonly nowMs: number;
  /** Scrubs every known token from text that came from the server. */
  readonly redact: (text: string) => string;
}

const MAX_MESSAGE = 120;

export const fail = (error: ApiError, retry = false): Outcome => ({ ok: false, error, retry });

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `message` (or `error`) of a `{"success": false, "message": ...}` body, short, redacted. */
export function serverMessage(text: string, redact: (text: string) => string): string | undefined {
  const body = safeJson(text);
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, error } = body as Record<string, unknown>;
  const said =
    typeof message === 'string' ? message : typeof error === 'string' ? error : undefined;
  return said === undefined ? undefined : redact(said).slice(0, MAX_MESSAGE);
}

/**
 * Reads a complete answer: 2xx reads the records; 401/403 is an auth error; 429 a rate limit
 * with the retry time from `Retry-After` or the body; 5xx a retryable HTTP error; a redirect
 * and other 4xx are final HTTP errors.
 */
export function interpretAnswer(
  status: number,
  retryAfter: string | undefined,
  body: StreamedBody,
  context: AnswerContext,
): Outcome {
  const base = { endpoint: context.endpoint, status, attempts: context.attempts };
  if (status >= 200 && status < 300) return readRecords(status, body, context);
  // The transport reads only a successful answer as records; anything else is its text.
  const text = body.kind === 'text' ? body.text : '';
  const said = serverMessage(text, context.redact);
  const suffix = said ? `: ${said}` : '';
  if (status === 401 || status === 403) {
    return fail(new ApiAuthError({ ...base, reason: `token rejected${suffix}` }));
  }
  if (status === 429) {
    const retryAfterMs =
      parseRetryAfter(retryAfter, context.nowMs) ??
      retryAfterFromBody(safeJson(text), context.nowMs);
    const wait =
      retryAfterMs === undefined ? '' : `, retry after ${Math.ceil(retryAfterMs / 1000)} s`;
    return fail(
      new ApiRateLimitError({ ...base, reason: `rate limited${wait}`, retryAfterMs }),
      true,
    );
  }
  if (status >= 500)
    return fail(new ApiHttpError({ ...base, reason: `server error${suffix}` }), true);
  if (status >= 300 && status < 400) {
    return fail(new ApiHttpError({ ...base, reason: 'unexpected redirect (not followed)' }));
  }
  return fail(new ApiHttpError({ ...base, reason: `request refused${suffix}` }));
}

const MALFORMED = 'malformed or truncated JSON';

function readRecords(status: number, answer: StreamedBody, context: AnswerContext): Outcome {
  const base = { endpoint: context.endpoint, status, attempts: context.attempts };
  if (answer.kind === 'malformed-array') {
    const cause = new Error('SyntaxError while parsing JSON');
    return fail(new ApiBodyError({ ...base, reason: MALFORMED, cause }));
  }
  const text = answer.kind === 'text' ? answer.text : '';
  let body: unknown;
  if (answer.kind === 'array') body = answer.rows;
  else {
    try {
      body = JSON.parse(text);
    } catch (error) {
      const start = text.trimStart();
      const reason =
        start === ''
          ? 'empty body instead of a JSON array'
          : start.startsWith('<')
            ? 'an HTML page instead of a JSON array'
            : MALFORMED;
      // JSON.parse quotes the text it choked on: keep only its name, the text may hold anything.
      const cause = new Error(
        `${error instanceof Error ? error.name : 'Error'} while parsing JSON`,
      );
      return fail(new ApiBodyError({ ...base, reason, cause }));
    }
  }
  try {
    const reader =
      context.rows ??
      new BatchReader(
        context.endpoint,
        context.zone,
        context.fields === undefined ? {} : { fields: context.fields },
      );
    return { ok: true, batch: reader.end(body) };
  } catch (error) {
    if (!(error instanceof NotAnArrayError)) throw error;
    const said = serverMessage(text, context.redact);
    const reason = `${error.message}${said ? ` (the API said: ${said})` : ''}`;
    return fail(new ApiBodyError({ ...base, reason, cause: error }));
  }
}
