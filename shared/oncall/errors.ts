/** Base class of the on-call errors (contract section 8). */
export class OnCallError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OnCallError';
  }
}

/** An override that cannot be added or removed: ends before it starts, unknown id. */
export class OverrideError extends OnCallError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OverrideError';
  }
}
