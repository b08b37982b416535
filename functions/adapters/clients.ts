/** Limits every SDK client of the functions is created with. */
export interface ClientLimits {
  /** Per HTTP request, so a hung connection cannot eat the Lambda's deadline. @default 3000 */
  readonly requestTimeoutMs?: number;
  /** @default 1000 */
  readonly connectionTimeoutMs?: number;
  /** SDK attempts per call, including the first. @default 3 */
  readonly maxAttempts?: number;
}

/**
 * Constructor options shared by the SDK clients: explicit timeouts and a bounded retry count.
 * The region and endpoint come from the environment (`AWS_REGION`, `AWS_ENDPOINT_URL`).
 */
export function clientOptions(limits: ClientLimits = {}) {
  return {
    maxAttempts: limits.maxAttempts ?? 3,
    requestHandler: {
      requestTimeout: limits.requestTimeoutMs ?? 3000,
      connectionTimeout: limits.connectionTimeoutMs ?? 1000,
    },
  };
}
