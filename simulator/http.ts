import type { ServerResponse } from 'node:http';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Records per write when streaming a large array: big enough to be fast, small enough to flow. */
const CHUNK_RECORDS = 2000;

/** Writes a whole JSON value. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON_TYPE, JSON.stringify(body), headers);
}

/** The API's error body shape (api-notes): `{"success": false, "message": "..."}`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { success: false, message }, headers);
}

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/**
 * Streams a JSON array in chunks, waiting for the socket to drain, so 100k records never sit
 * in memory as one string and a slow reader is not flooded.
 */
export async function streamJsonArray(
  res: ServerResponse,
  items: readonly unknown[],
): Promise<void> {
  res.writeHead(200, { 'content-type': JSON_TYPE });
  let prefix = '[';
  for (let start = 0; start < items.length; start += CHUNK_RECORDS) {
    const chunk = items.slice(start, start + CHUNK_RECORDS).map((item) => JSON.stringify(item));
    const ok = res.write(prefix + chunk.join(','));
    prefix = ',';
    if (!ok) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
      if (res.destroyed) return;
    }
  }
  res.end(prefix === '[' ? '[]' : ']');
}
