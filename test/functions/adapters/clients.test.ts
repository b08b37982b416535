import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { clientOptions } from '../../../functions/adapters/clients';

/** A server on 127.0.0.1 that takes requests and never finishes answering them. */
async function startHungServer(answer: (res: ServerResponse) => void) {
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    answer(res);
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
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()));
  stops = [];
});

/** A query through `clientOptions` with short limits, against `endpoint`. */
function query(endpoint: string) {
  const client = new DynamoDBClient({
    ...clientOptions({ requestTimeoutMs: 200, connectionTimeoutMs: 200, maxAttempts: 2 }),
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  stops.push(async () => client.destroy());
  const call = client.send(
    new QueryCommand({
      TableName: 't',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: 'live_calls' } },
    }),
  );
  // The server never answers: without a working timeout the call would wait forever, so this
  // guard only turns that into a readable failure.
  let guard: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error('the call was still waiting after 10 s')), 10_000);
  });
  return Promise.race([call, stuck]).finally(() => clearTimeout(guard));
}

describe('Function: clientOptions', () => {
  it('fails each attempt at a server that never answers when the request timeout passes, then gives up', async () => {
    const server = await startHungServer(() => {});
    stops.push(server.stop);
    const error = await query(server.endpoint).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect((error as Error).message).toContain('requestTimeout');
    // Both attempts were made: the timeout is an error the SDK retries, not a warning.
    expect(server.requests).toHaveLength(2);
  });

  it('fails a call whose answer stops arriving after its headers', async () => {
    const server = await startHungServer((res) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100' });
      res.write('{"Items":[');
    });
    stops.push(server.stop);
    const error = await query(server.endpoint).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(server.requests).toHaveLength(2);
  });
});
