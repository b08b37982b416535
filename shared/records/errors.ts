/** Base class of the records area's errors. */
export class RecordsError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RecordsError';
  }
}

/** A response body (already JSON-parsed) that is not an array of records. */
export class NotAnArrayError extends RecordsError {
  /** `object`, `string`, `null`, ...: what came instead of an array. */
  readonly found: string;

  constructor(body: unknown) {
    const found = body === null ? 'null' : typeof body;
    super(`expected a JSON array of records, got ${found === 'object' ? 'an object' : found}`);
    this.name = 'NotAnArrayError';
    this.found = found;
  }
}
