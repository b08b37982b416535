import { parseDecimal } from '../money/decimal';
import { LIVE_CALL_QUERY_KEYS, OPERATORS, type Operator } from '../types/config';
import { ApiConfigError, ApiQueryError } from './errors';
import { type ApiRequest, ENDPOINT_PATHS } from './types';

/**
 * A literal loopback address, or `localhost` itself. Not `*.localhost`: such a name is resolved
 * by DNS on many systems (RFC 6761 asks resolvers to answer loopback, not all do), so a token
 * sent over plain http to `api.localhost` could leave the machine.
 */
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Checks the configured base URL: https, or http only for loopback hosts (127.0.0.0/8, ::1,
 * localhost), no credentials, query or fragment. Returns it without a trailing slash (a path
 * prefix of a white-label host is kept).
 *
 * @throws ApiConfigError saying what to change.
 */
export function validateBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch (error) {
    throw new ApiConfigError('api.baseUrl is not a URL: write it like https://api.example.com', {
      cause: error,
    });
  }
  if (url.username || url.password) {
    throw new ApiConfigError(
      'api.baseUrl must not carry credentials: the token comes from the token source',
    );
  }
  if (url.search || url.hash) {
    throw new ApiConfigError(`api.baseUrl must not have a query or fragment (${url.origin})`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new ApiConfigError(
      `api.baseUrl must use https (${url.origin}); plain http is allowed for loopback hosts only`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiConfigError(`api.baseUrl must be an https URL, not ${url.protocol}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const API_DATE = /^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}:\d{2})?$/;

/**
 * The full URL of a request. Empty filters are left out; the payments dates must be
 * `Y-m-d H:i:s` or `Y-m-d`, and `amount` goes only with an `operator` (the API's behaviour
 * with one of them alone is undocumented).
 *
 * @throws ApiQueryError for a query the API would refuse or misread.
 */
export function requestUrl(base: string, request: ApiRequest): string {
  const params = new URLSearchParams();
  const endpoint = request.endpoint;
  const refuse = (reason: string) => new ApiQueryError({ endpoint, reason });
  if (request.endpoint === 'live_calls') {
    for (const key of LIVE_CALL_QUERY_KEYS) {
      const value = request.query[key]?.trim();
      if (value) params.set(key, value);
    }
  } else {
    const { from_date, to_date, amount, operator } = request.query;
    for (const [name, value] of [
      ['from_date', from_date],
      ['to_date', to_date],
    ] as const) {
      if (value === undefined) continue;
      if (!API_DATE.test(value)) throw refuse(`${name} must be Y-m-d H:i:s or Y-m-d`);
      params.set(name, value);
    }
    if ((amount === undefined) !== (operator === undefined)) {
      throw refuse('amount and operator go together: give both or neither');
    }
    if (amount !== undefined && operator !== undefined) {
      if (!(OPERATORS as readonly string[]).includes(operator)) {
        throw refuse(`operator must be one of ${OPERATORS.join(', ')}`);
      }
      if (!parseDecimal(amount)) throw refuse('amount must be a decimal number');
      params.set('amount', amount.trim());
      params.set('operator', operator satisfies Operator);
    }
  }
  const query = params.toString();
  return `${base}${ENDPOINT_PATHS[endpoint]}${query ? `?${query}` : ''}`;
}
