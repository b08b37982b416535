import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ENDPOINT_PATHS, type Endpoint } from '../shared/api/types';
import { assertTimeZone } from '../shared/time/zone';
import { type Clock, systemClock } from './clock';
import { QueryError, UnknownScenarioError } from './errors';
import {
  type Fault,
  FaultBoard,
  type FaultPlan,
  htmlErrorPage,
  MALFORMED_JSON_BODY,
  mixWrongTypes,
  truncatedJson,
} from './faults';
import { generateLiveCalls, generatePayments } from './generate';
import { sendError, sendJson, sendText, streamJsonArray } from './http';
import { matchCall, matchPayment, parseLiveCallsQuery, parsePaymentsQuery } from './query';
import type { RawRecord } from './records';
import { liveCallsAt, paymentsAt, type ScenarioRun } from './scenario-run';
import {
  DEFAULT_SCENARIO,
  isScenarioName,
  SCENARIO_NAMES,
  SCENARIOS,
  type ScenarioName,
} from './scenarios/index';
import type { Scenario } from './scenarios/types';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** The bearer token it accepts. @default 'sim-token' */
  readonly token?: string;
  /** @default 'busy-evening' */
  readonly scenario?: ScenarioName | Scenario;
  /** @default 1 */
  readonly seed?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /** Zone of the wall-clock timestamps it writes and reads. @default 'Asia/Kolkata' */
  readonly zone?: string;
  readonly faults?: FaultPlan;
}

/** One request as the simulator saw it. The token is never recorded. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorized: boolean;
  /** The status answered; 0 for a request left hanging. */
  readonly status: number;
}

export interface RunningSimulator {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly clock: Clock;
  /** Stops listening and drops every open connection, hanging ones included. */
  close(): Promise<void>;
  setFault(endpoint: Endpoint, fault: Fault | undefined): void;
  /** Accepts a new token from now on (the old one gets 403), as after a rotation. */
  setToken(token: string): void;
  /**
   * Starts the scenario over as if it had begun at `startMs` (the clock is untouched): a caller
   * that learns only later when its polls begin places them where the scenario is interesting.
   */
  restartScenario(startMs: number): void;
  readonly requests: readonly RecordedRequest[];
}

export const DEFAULT_TOKEN = 'sim-token';
export const DEFAULT_ZONE = 'Asia/Kolkata';

function resolveScenario(scenario: ScenarioName | Scenario | undefined): Scenario {
  if (scenario === undefined) return SCENARIOS[DEFAULT_SCENARIO];
  if (typeof scenario !== 'string') return scenario;
  if (!isScenarioName(scenario)) throw new UnknownScenarioError(scenario, SCENARIO_NAMES);
  return SCENARIOS[scenario];
}

function endpointOf(pathname: string): Endpoint | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === ENDPOINT_PATHS.live_calls) return 'live_calls';
  if (path === ENDPOINT_PATHS.payments) return 'payments';
  return undefined;
}

/**
 * Starts the API simulator on loopback: both endpoints with their filters, a bearer check,
 * a scenario driven by `clock` and `seed`, and faults per endpoint. The scenario starts at
 * the clock's time when this is called.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const scenario = resolveScenario(options.scenario);
  const zone = options.zone ?? DEFAULT_ZONE;
  assertTimeZone(zone);
  const clock = options.clock ?? systemClock;
  let run: ScenarioRun = { scenario, startMs: clock.now(), seed: options.seed ?? 1, zone };
  let token = options.token ?? DEFAULT_TOKEN;
  const faults = new FaultBoard(options.faults);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  /** The answer without faults; throws `QueryError` for a query it cannot use. */
  const normalRecords = (endpoint: Endpoint, params: URLSearchParams): RawRecord[] => {
    const now = clock.now();
    if (endpoint === 'live_calls') {
      const filter = parseLiveCallsQuery(params);
      return liveCallsAt(run, now)
        .filter((call) => matchCall(call, filter))
        .map((call) => call.record);
    }
    const filter = parsePaymentsQuery(params, zone);
    return paymentsAt(run, now, filter.fromMs)
      .filter((payment) => matchPayment(payment, filter))
      .map((payment) => payment.record);
  };

  /** Some records for faults that need a body to spoil, even when the scenario is idle. */
  const someRecords = (endpoint: Endpoint, params: URLSearchParams): RawRecord[] => {
    const records = normalRecords(endpoint, params);
    if (records.length >= 3) return records;
    const extra =
      endpoint === 'payments'
        ? generatePayments(3, run.seed, clock.now(), zone)
        : generateLiveCalls(3, run.seed, clock.now(), zone);
    return [...records, ...extra];
  };

  const answer = async (
    endpoint: Endpoint,
    params: URLSearchParams,
    fault: Fault | undefined,
    res: ServerResponse,
  ): Promise<number> => {
    switch (fault?.kind) {
      case 'status':
        sendError(res, fault.status, `simulated ${fault.status}`);
        return fault.status;
      case 'rate-limit':
        sendError(res, 429, 'Too many requests, slow down', {
          'retry-after': String(fault.retryAfterSeconds),
        });
        return 429;
      case 'malformed-json':
        sendText(res, 200, 'application/json; charset=utf-8', MALFORMED_JSON_BODY);
        return 200;
      case 'html': {
        const status = fault.status ?? 200;
        sendText(res, status, 'text/html; charset=utf-8', htmlErrorPage(status));
        return status;
      }
      case 'truncated':
        sendText(
          res,
          200,
          'application/json; charset=utf-8',
          truncatedJson(someRecords(endpoint, params)),
        );
        return 200;
      case 'wrong-types':
        sendJson(res, 200, mixWrongTypes(endpoint, someRecords(endpoint, params)));
        return 200;
      case 'empty':
        sendJson(res, 200, []);
        return 200;
      case 'large': {
        const now = clock.now();
        const records =
          endpoint === 'payments'
            ? generatePayments(fault.count, run.seed, now, zone)
            : generateLiveCalls(fault.count, run.seed, now, zone);
        await streamJsonArray(res, records);
        return 200;
      }
      default: {
        const records = normalRecords(endpoint, params);
        if (records.length > 5000) await streamJsonArray(res, records);
        else sendJson(res, 200, records);
        return 200;
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    const authorized = req.headers.authorization === `Bearer ${token}`;
    const record = (status: number): void => {
      requests.push({ method, path: url.pathname, query, authorized, status });
    };
    const endpoint = endpointOf(url.pathname);
    if (!endpoint) {
      sendError(res, 404, `no such endpoint: ${url.pathname}`);
      return record(404);
    }
    if (method !== 'GET') {
      sendError(res, 405, `${method} is not allowed here: use GET`, { allow: 'GET' });
      return record(405);
    }
    if (!authorized) {
      // Says what is wrong without echoing what was sent.
      const why = req.headers.authorization ? 'invalid bearer token' : 'missing bearer token';
      sendError(res, 403, `Unauthorized: ${why}`);
      return record(403);
    }
    const fault = faults.take(endpoint);
    if (fault?.kind === 'hang') return record(0);
    if (fault?.kind === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, fault.delayMs);
        timers.add(timer);
      });
      if (res.destroyed) return record(0);
    }
    try {
      record(await answer(endpoint, url.searchParams, fault, res));
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      sendError(res, 400, error.message);
      record(400);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the simulator: answer 500 rather than leave the client hanging.
      if (!res.headersSent) sendError(res, 500, `simulator error: ${String(error)}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    clock,
    requests,
    setFault: (endpoint, fault) => faults.set(endpoint, fault),
    setToken: (next) => {
      token = next;
    },
    restartScenario: (startMs) => {
      run = { ...run, startMs };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}
