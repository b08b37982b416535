import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { pipeline, type Readable, type Transform } from 'node:stream';
import {
  brotliDecompressSync,
  constants,
  createBrotliDecompress,
  createGunzip,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';
import { UnreadableBodyError } from './errors';
import {
  type BodyReader,
  JsonArrayReader,
  type RowSink,
  type StreamedBody,
  TextReader,
} from './json-array';

/** One complete HTTP answer: status, headers by lower-case name, the body. */
export interface HttpAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  /**
   * A successful answer that is a JSON array comes parsed, read a piece at a time as it
   * streamed in (`JsonArrayReader`), so a 20 MB answer is never one string; anything else
   * (an error's message, an HTML page) is its text, a byte-order mark dropped.
   */
  readonly body: StreamedBody;
}

/**
 * The client's transport: one GET, never following a redirect; throws on a network failure
 * and when `signal` aborts before the whole body is in (headers and body alike). `onRows`
 * takes a successful JSON array's elements a piece at a time as they are parsed (a transport
 * may also give none, and the client reads the rows from the whole body).
 */
export type HttpGet = (
  url: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  onRows?: RowSink,
) => Promise<HttpAnswer>;

type HttpModule = typeof import('node:http');
// `require`, not `import`: an ES import of node:http builds its namespace from every export,
// and the WebSocket ones load undici (tens of milliseconds on a cold start).
const load = createRequire(import.meta.url);
let modules: { http: HttpModule; https: HttpModule } | undefined;

/** The content encodings `nodeHttpGet` asks for and decodes. */
const ACCEPT_ENCODING = 'gzip, deflate, br';
const BOM = '\uFEFF';

/**
 * The longest answer read, in characters of decoded text: 100,000 payments are about 20
 * million. A longer one (or a compression bomb) fails as an unreadable body with a clear
 * reason instead of running a 256 MB function out of memory.
 */
export const MAX_BODY_LENGTH = 48 * 1024 * 1024;

/**
 * `HttpGet` on node:http and node:https: asks for a compressed body and decodes it, reads the
 * body as UTF-8 (a byte-order mark dropped, as `fetch` does), at most `maxBodyLength`
 * characters of it.
 */
export function createNodeHttpGet(maxBodyLength = MAX_BODY_LENGTH): HttpGet {
  return (url, headers, signal, onRows) => get(url, headers, signal, maxBodyLength, onRows);
}

async function get(
  url: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  maxBodyLength: number,
  onRows: RowSink | undefined,
): Promise<HttpAnswer> {
  modules ??= { http: load('node:http'), https: load('node:https') };
  const transport = url.startsWith('https:') ? modules.https : modules.http;
  signal.throwIfAborted();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = transport.request(url, {
      method: 'GET',
      headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers },
      signal,
    });
    request.once('response', resolve);
    request.once('error', reject);
    request.end();
  });
  const onAbort = () => response.destroy(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const body = await readBody(response, maxBodyLength, onRows).catch((error: unknown) => {
      // An error answer's body only ever adds a message: one that does not decode must not
      // hide the status (a 401 still invalidates the token, a 503 is still retried).
      if (error instanceof UnreadableBodyError && !isSuccess(error.status)) return EMPTY;
      throw error;
    });
    signal.throwIfAborted();
    const { headers: received } = response;
    return {
      status: response.statusCode ?? 0,
      header(name) {
        const value = received[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: withoutBom(body),
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const EMPTY: StreamedBody = { kind: 'text', text: '' };

function withoutBom(body: StreamedBody): StreamedBody {
  return body.kind === 'text' && body.text.startsWith(BOM)
    ? { kind: 'text', text: body.text.slice(1) }
    : body;
}

/** What reads a body of `status`: only a successful one can be records. */
function bodyReader(status: number | undefined, onRows: RowSink | undefined): BodyReader {
  return isSuccess(status ?? 0) ? new JsonArrayReader(onRows) : new TextReader();
}

/** `HttpGet` on node:http and node:https, the client's default (see `createNodeHttpGet`). */
export const nodeHttpGet: HttpGet = createNodeHttpGet();

/**
 * The body, decoded and read as it arrives where it can be (plain, gzip or brotli): no list
 * of chunks and concatenated buffer, and for a JSON array not even its whole text, which
 * matters for a 20 MB answer in 256 MB. Deflate (with or without its zlib header, told apart
 * by its first bytes) and stacked codings are collected compressed and decoded once whole.
 */
async function readBody(
  response: IncomingMessage,
  maxLength: number,
  onRows: RowSink | undefined,
): Promise<StreamedBody> {
  const codings = contentCodings(response.headers['content-encoding']);
  if (codings.length === 0) return streamBody(response, maxLength, onRows);
  const [only] = codings;
  if (codings.length === 1 && only !== undefined && STREAMED.has(only)) {
    return streamBody(response, maxLength, onRows, only);
  }
  // Bytes bound the characters from above (UTF-8 takes 1 to 3 bytes a UTF-16 unit): checked
  // on the bytes first, so nothing much past the bound is ever held, then on the text.
  const maxBytes = maxLength * 3;
  const chunks: Buffer[] = [];
  let collected = 0;
  for await (const chunk of response) {
    collected += (chunk as Buffer).length;
    if (collected > maxBytes) throw tooLong(response, maxLength);
    chunks.push(chunk as Buffer);
  }
  let body: Buffer = Buffer.concat(chunks);
  chunks.length = 0;
  // Codings apply in the order listed, so they come off last first. An empty body (a 401 or
  // 204 labelled gzip) has nothing to decode.
  for (const coding of codings.reverse()) {
    if (body.length === 0) break;
    try {
      body = decode(coding, body, maxBytes);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLong(response, maxLength);
      }
      throw undecodable(response, coding, error);
    }
  }
  const text = body.toString('utf8');
  if (text.length > maxLength) throw tooLong(response, maxLength);
  const reader = bodyReader(response.statusCode, onRows);
  reader.push(text);
  return reader.end();
}

/** Codings decoded as the body streams in (leniently, as fetch does: a body cut short decodes as far as it goes). */
const STREAMED: ReadonlyMap<string, () => Transform> = new Map([
  ['gzip', () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  ['x-gzip', () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })],
  ['br', () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH })],
]);

async function streamBody(
  response: IncomingMessage,
  maxLength: number,
  onRows: RowSink | undefined,
  coding?: string,
): Promise<StreamedBody> {
  const decoder = coding === undefined ? undefined : STREAMED.get(coding)?.();
  // A failure of the response itself (reset, abort) is the network's and propagates as is;
  // one of the decoder alone is the body's.
  let responseFailed = false;
  response.once('error', () => {
    responseFailed = true;
  });
  const source: Readable = decoder ? pipeline(response, decoder, () => {}) : response;
  source.setEncoding('utf8');
  const reader = bodyReader(response.statusCode, onRows);
  try {
    for await (const chunk of source) {
      reader.push(chunk as string);
      if (reader.length > maxLength) {
        source.destroy();
        response.destroy();
        throw tooLong(response, maxLength);
      }
    }
  } catch (error) {
    if (error instanceof UnreadableBodyError || coding === undefined || responseFailed) {
      throw error;
    }
    throw undecodable(response, coding, error);
  }
  return reader.end();
}

function tooLong(response: IncomingMessage, maxLength: number): UnreadableBodyError {
  return new UnreadableBodyError(
    response.statusCode ?? 0,
    `answer longer than ${maxLength} characters (telealert reads at most that much)`,
  );
}

function undecodable(
  response: IncomingMessage,
  coding: string,
  error: unknown,
): UnreadableBodyError {
  const reason = error instanceof Error ? error.message : String(error);
  return new UnreadableBodyError(
    response.statusCode ?? 0,
    `undecodable ${coding} body: ${reason}`,
    {
      cause: error,
    },
  );
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** `Content-Encoding` as a list of codings, lower case, `identity` left out. */
function contentCodings(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/**
 * One coding off, leniently as fetch does (a body cut short decodes as far as it goes): gzip,
 * deflate with or without its zlib header (servers send both), brotli.
 */
function decode(coding: string, body: Buffer, maxOutputLength: number): Buffer {
  const lenient = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, lenient);
    case 'deflate':
      return hasZlibHeader(body) ? inflateSync(body, lenient) : inflateRawSync(body, lenient);
    case 'br':
      return brotliDecompressSync(body, {
        finishFlush: constants.BROTLI_OPERATION_FLUSH,
        maxOutputLength,
      });
    default:
      throw new Error('unsupported content encoding');
  }
}

/** RFC 1950: deflate method in the low nibble, and the first two bytes a multiple of 31. */
function hasZlibHeader(body: Buffer): boolean {
  const [cmf = 0, flg = 0] = body;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/** `HttpGet` over a `fetch` (tests script answers with one). */
export function fetchHttpGet(fetch: typeof globalThis.fetch): HttpGet {
  return async (url, headers, signal, onRows) => {
    const response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
    const reader = bodyReader(response.status, onRows);
    reader.push(await response.text());
    return {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      body: reader.end(),
    };
  };
}
