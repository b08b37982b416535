import type { LiveCallQueryKey, Operator } from '../types/config';

export const ENDPOINT_PATHS = {
  live_calls: '/v1/live_calls',
  payments: '/v1/billing/payments/online',
} as const;
export type Endpoint = keyof typeof ENDPOINT_PATHS;

export type LiveCallsQuery = Readonly<Partial<Record<LiveCallQueryKey, string>>>;

export interface PaymentsQuery {
  /** `Y-m-d H:i:s` (or `yyyy-mm-dd`) in the configured zone. */
  readonly from_date?: string;
  readonly to_date?: string;
  /** Sent only together with `operator`. */
  readonly amount?: string;
  readonly operator?: Operator;
}

/** One API request as plain data: what the planner decides and the client performs. */
export type ApiRequest =
  | { readonly endpoint: 'live_calls'; readonly query: LiveCallsQuery }
  | { readonly endpoint: 'payments'; readonly query: PaymentsQuery };

/** The bearer token. Adapters: SSM SecureString (deployed), environment variable (local). */
export interface TokenSource {
  get(): Promise<string>;
  /** The API rejected the token: the next `get` must fetch it afresh. */
  invalidate(): void;
}
