import type { Endpoint } from '../../shared/api/types';
import type { Fault, FaultPlan } from '../../simulator/faults';
import { UsageError } from '../lib/errors';

const ENDPOINTS: readonly Endpoint[] = ['live_calls', 'payments'];
const STATUSES = [500, 403, 401, 502, 503] as const;

const USAGE =
  'write --fault ENDPOINT=KIND[:ARG], e.g. live_calls=status:500, payments=rate-limit:30, ' +
  'live_calls=slow:2000, payments=large:100000, live_calls=hang';

/**
 * Reads the `simulate --fault` options into a fault plan: `ENDPOINT=KIND[:ARG]`, one per
 * endpoint (a later one replaces an earlier one for the same endpoint).
 */
export function readFaults(texts: readonly string[] | undefined): FaultPlan {
  const plan: Partial<Record<Endpoint, Fault>> = {};
  for (const text of texts ?? []) {
    const [endpoint, spec = ''] = text.split('=', 2);
    if (!ENDPOINTS.includes(endpoint as Endpoint)) {
      throw new UsageError(`--fault ${text}: the endpoint is live_calls or payments; ${USAGE}`);
    }
    plan[endpoint as Endpoint] = readFault(spec, text);
  }
  return plan;
}

function readFault(spec: string, text: string): Fault {
  const [kind = '', arg] = spec.split(':', 2);
  const number = (what: string, min: number): number => {
    const value = Number(arg);
    if (arg === undefined || !Number.isInteger(value) || value < min) {
      throw new UsageError(`--fault ${text}: ${kind} needs ${what}; ${USAGE}`);
    }
    return value;
  };
  switch (kind) {
    case 'status': {
      const status = number('a status (500, 403, 401, 502 or 503)', 100);
      const known = STATUSES.find((candidate) => candidate === status);
      if (known === undefined) {
        throw new UsageError(`--fault ${text}: status is one of ${STATUSES.join(', ')}`);
      }
      return { kind, status: known };
    }
    case 'rate-limit':
      return { kind, retryAfterSeconds: number('the Retry-After seconds', 0) };
    case 'slow':
      return { kind, delayMs: number('the delay in milliseconds', 0) };
    case 'large':
      return { kind, count: number('the number of records', 1) };
    case 'html':
      return arg === '502' ? { kind, status: 502 } : { kind };
    case 'hang':
    case 'malformed-json':
    case 'truncated':
    case 'wrong-types':
    case 'empty':
      return { kind };
    default:
      throw new UsageError(`--fault ${text}: unknown fault "${kind}"; ${USAGE}`);
  }
}
