/** Base class of the deployed runtime's errors (Lambda wiring and AWS adapters). */
export class RuntimeError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RuntimeError';
  }
}

/** The function's environment or bundled rules file is unusable; the message says what to fix. */
export class RuntimeConfigError extends RuntimeError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RuntimeConfigError';
  }
}
