import type { Endpoint } from '../shared/api/types';
import type { RawRecord } from './records';

/**
 * What can go wrong with one endpoint, as data. `times` applies the fault to the next N
 * requests only, then it clears (retry tests); without it the fault stays until replaced.
 */
export type Fault = FaultKindOf & { readonly times?: number };

type FaultKindOf =
  /** An error status with the API's JSON error body. */
  | { readonly kind: 'status'; readonly status: 500 | 403 | 401 | 502 | 503 }
  /** 429 with a `Retry-After` header in seconds. */
  | { readonly kind: 'rate-limit'; readonly retryAfterSeconds: number }
  /** The normal answer, after a delay. */
  | { readonly kind: 'slow'; readonly delayMs: number }
  /** Never answers (until the simulator closes). */
  | { readonly kind: 'hang' }
  /** 200 with a body that is not JSON at all. */
  | { readonly kind: 'malformed-json' }
  /** An HTML error page, as a proxy in front of the API sends. @default status 200 */
  | { readonly kind: 'html'; readonly status?: 200 | 502 }
  /** The normal JSON array cut in the middle of a record. */
  | { readonly kind: 'truncated' }
  /** Good records mixed with records of the wrong types and non-records. */
  | { readonly kind: 'wrong-types' }
  /** `[]`. */
  | { readonly kind: 'empty' }
  /** A very large answer of generated records (100k payments: `count: 100_000`). */
  | { readonly kind: 'large'; readonly count: number };

export type FaultKind = Fault['kind'];

/** A fault per endpoint, for `startSimulator({ faults })`. */
export type FaultPlan = Readonly<Partial<Record<Endpoint, Fault>>>;

/** One line per fault kind, for `--help` and docs/simulator.md. */
export const FAULT_DESCRIPTIONS: Readonly<Record<FaultKind, string>> = {
  status: 'answer 500, 401, 403, 502 or 503 with a JSON error body',
  'rate-limit': 'answer 429 with a Retry-After header',
  slow: 'answer normally after a delay',
  hang: 'never answer (past any client timeout)',
  'malformed-json': 'answer 200 with a body that is not JSON',
  html: 'answer an HTML error page (status 200 or 502)',
  truncated: 'answer the JSON array cut in the middle of a record',
  'wrong-types': 'mix good records with records of wrong types and non-records',
  empty: 'answer []',
  large: 'answer a very large array of generated records (for example 100k payments)',
};

/** The faults in force per endpoint, counting down the ones limited by `times`. */
export class FaultBoard {
  readonly #faults = new Map<Endpoint, { fault: Fault; remaining: number }>();

  constructor(plan: FaultPlan = {}) {
    for (const [endpoint, fault] of Object.entries(plan) as [Endpoint, Fault | undefined][]) {
      this.set(endpoint, fault);
    }
  }

  /** Replaces the fault of an endpoint; `undefined` clears it. */
  set(endpoint: Endpoint, fault: Fault | undefined): void {
    if (!fault || (fault.times !== undefined && fault.times <= 0)) {
      this.#faults.delete(endpoint);
      return;
    }
    this.#faults.set(endpoint, { fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** The fault for this request, using up one of its `times`. */
  take(endpoint: Endpoint): Fault | undefined {
    const entry = this.#faults.get(endpoint);
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#faults.delete(endpoint);
    return entry.fault;
  }
}

/** Looks like JSON to a glance, is not: single quotes, bare keys, a trailing comma. */
export const MALFORMED_JSON_BODY = "[{'id': 1, amount_paid: 100.00, status: pending,}]";

/** The kind of page a load balancer or PHP error handler sends. */
export function htmlErrorPage(status: number): string {
  const title = status === 200 ? 'Service temporarily unavailable' : `${status} Bad Gateway`;
  return `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><p>The server is busy. Please try again later.</p></body></html>\n`;
}

/** The JSON text of `records`, cut halfway through the last record. Needs at least one. */
export function truncatedJson(records: readonly RawRecord[]): string {
  const text = JSON.stringify(records);
  const lastRecord = text.lastIndexOf('{');
  const cut = lastRecord + Math.max(2, Math.floor((text.length - lastRecord) / 2));
  return text.slice(0, cut);
}

/** Elements no parser can take for a record of `endpoint`, to mix with good ones. */
export function wrongTypeRecords(endpoint: Endpoint): unknown[] {
  const common = [42, 'not a record', null, [1, 2, 3], true];
  if (endpoint === 'payments') {
    return [
      ...common,
      { id: { nested: true }, amount_paid: ['100'], created_at: false, status: 7 },
      { id: null, amount_paid: 'lots', created_at: 'yesterday', status: 'success' },
    ];
  }
  return [
    ...common,
    { call_id: { nested: true }, state: ['Ringing'], created_at: 12, direction: 'sideways' },
    { call_id: null, state: 'Ringing', created_at: 'soon', did: {} },
  ];
}

/** Good records with the bad ones spread among them, deterministically. */
export function mixWrongTypes(endpoint: Endpoint, good: readonly RawRecord[]): unknown[] {
  const bad = wrongTypeRecords(endpoint);
  const mixed: unknown[] = [];
  const length = Math.max(good.length, bad.length);
  for (let i = 0; i < length; i++) {
    if (i < good.length) mixed.push(good[i]);
    if (i < bad.length) mixed.push(bad[i]);
  }
  return mixed;
}
