import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelephonyClient } from '../../shared/api/client';
import {
  ApiAuthError,
  ApiBodyError,
  ApiHttpError,
  ApiNetworkError,
  ApiRateLimitError,
  ApiTimeoutError,
  UnreadableBodyError,
} from '../../shared/api/errors';
import { createNodeHttpGet, nodeHttpGet } from '../../shared/api/transport';

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const BODY = JSON.stringify([{ id: 'p-1', note: 'Bücher für Ünal' }]);
/** BODY as the transport gives a successful JSON array: parsed. */
const ROWS = { kind: 'array', rows: JSON.parse(BODY) };
/** Rows enough for several pieces of `MIN_PIECE_LENGTH` (about 400 KB of text). */
const MANY = Array.from({ length: 20_000 }, (_, id) => ({ id, note: id % 7 ? 'ok' : '},{' }));
const routes: Record<string, Route> = {
  '/plain': (_, res) => res.end(BODY),
  '/gzip': (_, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(BODY)),
  '/deflate': (_, res) =>
    res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync(BODY)),
  '/br': (_, res) => res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync(BODY)),
  '/bom': (_, res) => res.end(`\uFEFF${BODY}`),
  '/split-utf8': (_, res) => {
    // Byte by byte, so multi-byte characters straddle the chunks the client reads.
    const bytes = Buffer.from(BODY);
    let index = 0;
    const next = () => {
      if (index === bytes.length) return void res.end();
      res.write(bytes.subarray(index, index + 1), () => setTimeout(next, 0));
      index += 1;
    };
    next();
  },
  '/redirect': (_, res) => res.writeHead(302, { location: '/plain' }).end(),
  '/headers': (req, res) => res.end(JSON.stringify(req.headers)),
  '/many': (_, res) => {
    // Records in small writes, some holding the characters that separate records.
    const text = JSON.stringify(MANY);
    for (let at = 0; at < text.length; at += 1000) res.write(text.slice(at, at + 1000));
    res.end();
  },
  '/gzip-many': (_, res) => {
    const whole = gzipSync(JSON.stringify(MANY));
    res.writeHead(200, { 'content-encoding': 'gzip' });
    for (let at = 0; at < whole.length; at += 500) res.write(whole.subarray(at, at + 500));
    res.end();
  },
  '/error-array': (_, res) => res.writeHead(500).end('["not", "records"]'),
  '/limited': (_, res) => res.writeHead(429, { 'Retry-After': '7' }).end('slow down'),
  '/v1/live_calls': (_, res) => res.writeHead(429, { 'Retry-After': '7' }).end('slow down'),
  '/hang-body': (_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[{"id":');
  },
  '/raw-deflate': (_, res) =>
    res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateRawSync(BODY)),
  '/stacked': (_, res) =>
    res.writeHead(200, { 'content-encoding': 'gzip, br' }).end(brotliCompressSync(gzipSync(BODY))),
  '/truncated-gzip': (_, res) => {
    const whole = gzipSync(BODY);
    res.writeHead(200, { 'content-encoding': 'gzip' }).end(whole.subarray(0, whole.length - 8));
  },
  '/hang-gzip': (_, res) => {
    const whole = gzipSync(BODY);
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.write(whole.subarray(0, 20));
  },
  '/empty-gzip-204': (_, res) => res.writeHead(204, { 'content-encoding': 'gzip' }).end(),
  '/unknown-coding': (_, res) => res.writeHead(200, { 'content-encoding': 'zstd' }).end('x'),
  '/v1/billing/payments/online': (_, res) =>
    res.writeHead(401, { 'content-encoding': 'gzip', 'content-length': '0' }).end(),
  '/broken-gzip': (_, res) =>
    res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all')),
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, signal = AbortSignal.timeout(5_000)) =>
  nodeHttpGet(`${base}${path}`, { accept: 'application/json' }, signal);

describe('nodeHttpGet', () => {
  it('reads a plain body as UTF-8', async () => {
    const answer = await get('/plain');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(ROWS);
  });

  it('reads a successful JSON array as its records, piece by piece as it streams in', async () => {
    const answer = await get('/many');
    expect(answer.body.kind).toBe('array');
    const rows = answer.body.kind === 'array' ? answer.body.rows : [];
    expect(rows).toHaveLength(MANY.length);
    expect(rows[7]).toEqual({ id: 7, note: '},{' });
    expect(rows.at(-1)).toEqual(MANY.at(-1));
  });

  it.each(['/many', '/gzip-many'])(
    'hands the rows of %s over a piece at a time as they are parsed, in order',
    async (path) => {
      const pieces: (readonly unknown[])[] = [];
      const answer = await nodeHttpGet(
        `${base}${path}`,
        { accept: 'application/json' },
        AbortSignal.timeout(5_000),
        (rows) => pieces.push(rows),
      );
      const rows = answer.body.kind === 'array' ? answer.body.rows : [];
      expect(rows).toHaveLength(MANY.length);
      // Several pieces before the end: the rows were handed over while the body was coming.
      expect(pieces.length).toBeGreaterThan(1);
      const handed = pieces.flat();
      expect(handed).toHaveLength(rows.length);
      expect(handed.every((row, index) => row === rows[index])).toBe(true);
    },
  );

  it('hands no rows over for an error answer', async () => {
    const pieces: unknown[] = [];
    await nodeHttpGet(`${base}/error-array`, {}, AbortSignal.timeout(5_000), (rows) =>
      pieces.push(rows),
    );
    expect(pieces).toEqual([]);
  });

  it('keeps an error answer as text, even when it is a JSON array', async () => {
    expect((await get('/error-array')).body).toEqual({ kind: 'text', text: '["not", "records"]' });
  });

  it.each(['/gzip', '/deflate', '/br', '/raw-deflate', '/stacked'])(
    'decodes a compressed body (%s)',
    async (path) => {
      expect((await get(path)).body).toEqual(ROWS);
    },
  );

  it('asks for compression and sends the caller headers', async () => {
    const { body } = await get('/headers');
    const sent = JSON.parse(body.kind === 'text' ? body.text : '') as Record<string, string>;
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
    expect(sent.accept).toBe('application/json');
  });

  it('decodes characters split across chunks', async () => {
    expect((await get('/split-utf8')).body).toEqual(ROWS);
  });

  it('drops a byte-order mark, as fetch does', async () => {
    expect((await get('/bom')).body).toEqual(ROWS);
  });

  it('returns a redirect instead of following it', async () => {
    const answer = await get('/redirect');
    expect(answer.status).toBe(302);
    expect(answer.header('Location')).toBe('/plain');
  });

  it('finds headers whatever their case', async () => {
    const answer = await get('/limited');
    expect(answer.header('retry-after')).toBe('7');
    expect(answer.header('RETRY-AFTER')).toBe('7');
    expect(answer.header('x-missing')).toBeUndefined();
  });

  it('rejects when the signal aborts while the body is still coming', async () => {
    await expect(get('/hang-body', AbortSignal.timeout(200))).rejects.toThrow();
  });

  it('rejects as aborted, not as a bad body, when a compressed body stops coming', async () => {
    const error = await get('/hang-gzip', AbortSignal.timeout(200)).catch((caught) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnreadableBodyError);
  });

  it('rejects an already aborted signal without sending', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(get('/plain', controller.signal)).rejects.toThrow('cancelled');
  });

  it('rejects a body that does not decode, keeping its status', async () => {
    const error = await get('/broken-gzip').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreadableBodyError);
    expect((error as UnreadableBodyError).status).toBe(200);
    await expect(get('/unknown-coding')).rejects.toThrow(/zstd/);
  });

  it.each(['/plain', '/gzip', '/br', '/raw-deflate', '/stacked'])(
    'refuses an answer longer than the bound (%s)',
    async (path) => {
      const short = createNodeHttpGet(BODY.length - 1);
      const error = await short(`${base}${path}`, {}, AbortSignal.timeout(5_000)).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(UnreadableBodyError);
      expect((error as Error).message).toMatch(/longer than/);
      // At the bound itself it reads.
      expect(
        (await createNodeHttpGet(BODY.length)(`${base}${path}`, {}, AbortSignal.timeout(5_000)))
          .body,
      ).toEqual(ROWS);
    },
  );

  it('decodes a gzip body cut short as far as it goes, as fetch does', async () => {
    expect((await get('/truncated-gzip')).body).toEqual(ROWS);
  });

  it('leaves an empty body labelled gzip empty', async () => {
    const answer = await get('/empty-gzip-204');
    expect(answer.status).toBe(204);
    expect(answer.body).toEqual({ kind: 'text', text: '' });
  });
});

describe('TelephonyClient over nodeHttpGet', () => {
  /**
   * A client of one attempt. Its timeout is generous but where a test is about the timeout: a
   * loopback answer can take long on a busy machine, and would then read as a timeout.
   */
  const client = (baseUrl: string, timeoutMs = 30_000) =>
    new TelephonyClient({
      baseUrl,
      tokenSource: { get: async () => 'tok', invalidate: () => {} },
      timeoutMs,
      maxAttempts: 1,
    });
  const deadline = () => ({ deadlineMs: Date.now() + 60_000 });

  /** What a live calls request gets from a one-off server answering with `route`. */
  async function liveCallsFrom(route: Route, timeoutMs?: number): Promise<unknown> {
    const server = createServer(route);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      return await client(`http://127.0.0.1:${port}`, timeoutMs)
        .liveCalls({}, deadline())
        .catch((caught: unknown) => caught);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('names the system error of a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await client(`http://127.0.0.1:${port}`)
      .liveCalls({}, deadline())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as ApiNetworkError).reason).toContain('ECONNREFUSED');
  });

  it('reads a 401 with an empty gzip body as a rejected token', async () => {
    const error = await client(base)
      .payments({}, deadline())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiAuthError);
  });

  it('reports a body that does not decode as a body error with its status', async () => {
    const error = await liveCallsFrom((_, res) =>
      res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip'),
    );
    expect(error).toBeInstanceOf(ApiBodyError);
    expect((error as ApiBodyError).status).toBe(200);
  });

  it.each([
    [401, ApiAuthError],
    [429, ApiRateLimitError],
    [503, ApiHttpError],
  ])('keeps the meaning of a %i whose body does not decode', async (status, kind) => {
    const error = await liveCallsFrom((_, res) =>
      res
        .writeHead(status, { 'content-encoding': 'gzip', 'retry-after': '1' })
        .end('not gzip at all'),
    );
    expect(error).toBeInstanceOf(kind);
    expect((error as ApiHttpError).status).toBe(status);
  });

  it('reads Retry-After from a 429', async () => {
    const error = await client(base)
      .liveCalls({}, deadline())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiRateLimitError);
    expect((error as ApiRateLimitError).retryAfterMs).toBe(7_000);
  });

  it('times out a body that stops coming', async () => {
    const error = await liveCallsFrom((_, res) => {
      res.writeHead(200);
      res.write('[');
    }, 300);
    expect(error).toBeInstanceOf(ApiTimeoutError);
  });
});
