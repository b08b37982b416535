import { createRequire } from 'node:module';

/**
 * `node:http` as the bundles see it: `infra/poller.ts` aliases the module to this one at
 * bundling time. The SDK's HTTP handler loads node:http with `import()` (for plain-http
 * endpoints), and an ES import of node:http builds its namespace from every export, whose
 * WebSocket getters load undici: tens of milliseconds of a cold start for nothing. `require`
 * hands over the module object without touching those getters.
 */
const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');

export default http;
export const { Agent, ClientRequest, IncomingMessage, OutgoingMessage, STATUS_CODES } = http;
export const { METHODS, Server, ServerResponse, createServer, get, globalAgent } = http;
export const { maxHeaderSize, request, setMaxIdleHTTPParsers, validateHeaderName } = http;
export const { validateHeaderValue } = http;
