/** Base class of the notifier's errors. */
export class NotifierError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NotifierError';
  }
}

/**
 * The stored notifier state cannot be used (another version, or not a state). Refused loudly:
 * starting afresh would drop held events and digests without telling anyone.
 */
export class IncompatibleNotifierStateError extends NotifierError {
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `stored notifier state is unusable (${reason}); delete it to start afresh (held events are then lost)`,
      options,
    );
    this.name = 'IncompatibleNotifierStateError';
  }
}

/** A silence that cannot be added or changed: no matcher, ends before it starts, unknown id. */
export class SilenceError extends NotifierError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SilenceError';
  }
}

/** `silence expire` of a silence that has already ended: there is nothing to end. */
export class SilenceEndedError extends SilenceError {
  constructor(
    readonly silenceId: string,
    readonly endedAtMs: number,
    options?: ErrorOptions,
  ) {
    super(
      `silence ${silenceId} already ended at ${new Date(endedAtMs).toISOString()}: nothing to expire`,
      options,
    );
    this.name = 'SilenceEndedError';
  }
}

/** An acknowledgement that finds nothing to acknowledge. */
export class AckError extends NotifierError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AckError';
  }
}
