/** Base class of the engine's errors. */
export class EngineError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EngineError';
  }
}

/**
 * The previous state handed to `evaluate` cannot be used: another `STATE_VERSION`, another
 * source, or not a state at all. Refused loudly rather than discarded, because discarding it
 * would re-send every firing alert.
 */
export class IncompatibleStateError extends EngineError {
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `stored alert state is unusable (${reason}); delete the stored state of this source to start afresh`,
      options,
    );
    this.name = 'IncompatibleStateError';
  }
}
