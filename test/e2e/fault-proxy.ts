import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** One AWS request as the proxy read it. */
export interface ProxiedRequest {
  /** The signing name of the service (`dynamodb`, `sns`, `sqs`, `ssm`), from the credential scope. */
  readonly service: string;
  /** `UpdateItem`, `PublishBatch`, ...: the JSON target's or the query's `Action`. */
  readonly operation: string;
  readonly body: string;
}

/** What the proxy does to one request instead of passing it on untouched. */
export type AwsFault =
  /** Refused before it reaches moto: 500 or 503 with the service's own error body. */
  | { readonly kind: 'error'; readonly status: 500 | 503 }
  /** Refused before it reaches moto: 400 with the service's throttling error. */
  | { readonly kind: 'throttle' }
  /** The connection is reset before the request reaches moto. */
  | { readonly kind: 'reset' }
  /** Passed on after a delay. */
  | { readonly kind: 'delay'; readonly ms: number }
  /**
   * Passed on and applied by moto, then the answer is lost: the connection is reset, or a 500
   * is answered instead. The SDK retries a request that already took effect.
   */
  | { readonly kind: 'lost'; readonly answer: 'reset' | 500 }
  /**
   * The connection is reset before the request reaches moto (the SDK retries it), and the
   * request reaches moto only once `until` resolves: a first attempt that lands after its
   * retry. `landed` hears moto's answer status.
   */
  | {
      readonly kind: 'late';
      readonly until: Promise<void>;
      readonly landed: (status: number) => void;
    };

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: what `AWS_ENDPOINT_URL` points at. */
  readonly endpoint: string;
  /** Every request seen, in arrival order, with the fault it got. */
  readonly seen: readonly { readonly request: ProxiedRequest; readonly fault?: AwsFault }[];
  /** Stops listening and drops every open connection. */
  stop(): Promise<void>;
}

/** The AWS JSON error body of the services on the JSON protocol (DynamoDB, SQS, SSM). */
function jsonError(code: string, message: string): string {
  return JSON.stringify({ __type: `com.amazonaws#${code}`, message });
}

/** The AWS query protocol's XML error body (SNS). */
function xmlError(code: string, message: string, sender: boolean): string {
  return `<ErrorResponse xmlns="https://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>${
    sender ? 'Sender' : 'Receiver'
  }</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fault-proxy</RequestId></ErrorResponse>`;
}

/** The error a service answers for `fault`, in its protocol's shape. */
function errorAnswer(
  request: ProxiedRequest,
  fault: Extract<AwsFault, { kind: 'error' | 'throttle' }>,
): { status: number; contentType: string; body: string } {
  const query = request.service === 'sns';
  if (fault.kind === 'throttle') {
    const code =
      request.service === 'dynamodb'
        ? 'ProvisionedThroughputExceededException'
        : query
          ? 'Throttling'
          : 'ThrottlingException';
    return query
      ? { status: 400, contentType: 'text/xml', body: xmlError(code, 'Rate exceeded', true) }
      : {
          status: 400,
          contentType: 'application/x-amz-json-1.0',
          body: jsonError(code, 'Rate exceeded'),
        };
  }
  const code = fault.status === 503 ? 'ServiceUnavailable' : 'InternalFailure';
  return query
    ? { status: fault.status, contentType: 'text/xml', body: xmlError(code, code, false) }
    : {
        status: fault.status,
        contentType: 'application/x-amz-json-1.0',
        body: jsonError(code, code),
      };
}

function describe(req: IncomingMessage, body: string): ProxiedRequest {
  const scope = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(req.headers.authorization ?? '');
  const target = req.headers['x-amz-target'];
  const operation =
    typeof target === 'string'
      ? (target.split('.').pop() ?? '')
      : (new URLSearchParams(body).get('Action') ?? '');
  return { service: scope?.[1] ?? '', operation, body };
}

/**
 * An HTTP proxy on 127.0.0.1 between the AWS SDK and moto that asks `decide` what to do with
 * each request: pass it on (`undefined`) or inject a fault. Faults are in the shapes AWS answers
 * with, so the SDK's own retry logic is what is exercised.
 */
export async function startFaultProxy(
  target: string,
  decide: (request: ProxiedRequest) => AwsFault | undefined,
): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const seen: { request: ProxiedRequest; fault?: AwsFault }[] = [];
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>(
      (resolve, reject) => {
        const upstream = httpRequest(
          {
            host: targetUrl.hostname,
            port: targetUrl.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: targetUrl.host },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 502,
                headers: res.headers,
                body: Buffer.concat(chunks),
              }),
            );
            res.on('error', reject);
          },
        );
        upstream.on('error', reject);
        upstream.end(body);
      },
    );

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const request = describe(req, body.toString('utf8'));
    const fault = decide(request);
    seen.push(fault === undefined ? { request } : { request, fault });
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'late') {
      req.socket.destroy();
      await fault.until;
      fault.landed((await forward(req, body)).status);
      return;
    }
    if (fault?.kind === 'error' || fault?.kind === 'throttle') {
      const answer = errorAnswer(request, fault);
      res.writeHead(answer.status, { 'content-type': answer.contentType });
      res.end(answer.body);
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const answer = await forward(req, body);
    if (fault?.kind === 'lost') {
      if (fault.answer === 'reset') {
        req.socket.destroy();
        return;
      }
      const error = errorAnswer(request, { kind: 'error', status: 500 });
      res.writeHead(error.status, { 'content-type': error.contentType });
      res.end(error.body);
      return;
    }
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.byteLength) });
    res.end(answer.body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
