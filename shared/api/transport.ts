import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** One complete HTTP answer: status, headers by lower-case name, the body as text. */
export interface HttpAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  readonly text: string;
}

/**
 * The client's transport: one GET, never following a redirect; throws on a network failure
 * and when `signal` aborts before the whole body is in (headers and body alike).
 */
export type HttpGet = (
  url: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
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
 * `HttpGet` on node:http and node:https (the default): asks for a compressed body and decodes
 * it, reads the body as UTF-8 (a byte-order mark dropped, as `fetch` does).
 */
export const nodeHttpGet: HttpGet = async (url, headers, signal) => {
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
    // Decoded as it arrives: the text is the only whole copy of the body (no list of chunks
    // and concatenated buffer beside it), which matters for a 20 MB answer in 256 MB.
    const body = decoded(response);
    body.setEncoding('utf8');
    let text = '';
    for await (const chunk of body) text += chunk as string;
    signal.throwIfAborted();
    const { headers: received } = response;
    return {
      status: response.statusCode ?? 0,
      header(name) {
        const value = received[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      text: text.startsWith(BOM) ? text.slice(1) : text,
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
};

function decoded(response: IncomingMessage): Readable {
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  // pipeline destroys the decoder with the response's error, so the reader sees it.
  return pipeline(response, decoder, () => {});
}

/** `HttpGet` over a `fetch` (tests script answers with one). */
export function fetchHttpGet(fetch: typeof globalThis.fetch): HttpGet {
  return async (url, headers, signal) => {
    const response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
    const text = await response.text();
    return {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      text,
    };
  };
}
