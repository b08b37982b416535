/** Limits every SDK client of the functions is created with. */
export interface ClientLimits {
  /**
   * Per HTTP request attempt, until the answer's headers; the body must then keep arriving with
   * no pause this long. A hung connection fails the attempt (and the SDK retries) instead of
   * eating the Lambda's deadline. @default 3000
   */
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
  const requestTimeout = limits.requestTimeoutMs ?? 3000;
  return {
    maxAttempts: limits.maxAttempts ?? 3,
    requestHandler: {
      requestTimeout,
      // Without it @smithy/node-http-handler only logs a warning when `requestTimeout` passes
      // and keeps waiting: a DynamoDB query held 8 s took 8 s, in one attempt.
      throwOnRequestTimeout: true,
      // `requestTimeout` ends once the headers arrive; a body that stalls after them is cut
      // by the socket's idle timeout.
      socketTimeout: requestTimeout,
      connectionTimeout: limits.connectionTimeoutMs ?? 1000,
    },
  };
}
