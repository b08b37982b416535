import type { SourceName } from '../types/config';

/** Base class of the ports' errors (state stores, publishers, token sources). */
export class PortError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PortError';
  }
}

/**
 * Another run committed first: the stored revision is no longer the one this run read.
 * The loser re-reads and re-evaluates, or stops; it never publishes what it computed.
 */
export class StateConflictError extends PortError {
  constructor(
    readonly source: SourceName,
    readonly expectedRevision: number,
    options?: ErrorOptions,
  ) {
    super(
      `state of ${source} changed since revision ${expectedRevision} was read (a concurrent run committed first)`,
      options,
    );
    this.name = 'StateConflictError';
  }
}

/** The stored state cannot be read or written (a corrupt file, an unreachable table). */
export class StateStoreError extends PortError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateStoreError';
  }
}

/**
 * The API token could not be obtained (the parameter store is down, the parameter is missing).
 * The message names the parameter, never its value.
 */
export class TokenUnavailableError extends PortError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TokenUnavailableError';
  }
}

/**
 * Another notifier step committed first (a poller and the notifier's clock at once). The loser
 * re-reads and decides again; it never publishes what it decided.
 */
export class NotifierConflictError extends PortError {
  constructor(
    readonly expectedRevision: number,
    options?: ErrorOptions,
  ) {
    super(
      `notifier state changed since revision ${expectedRevision} was read (a concurrent step committed first)`,
      options,
    );
    this.name = 'NotifierConflictError';
  }
}

/**
 * The notifier state a step would commit is larger than the store can hold (the DynamoDB item:
 * about 350 KB compressed). Nothing is written; the step tells what it kept instead
 * (`notifierStep`), so the state it commits next holds no kept events.
 */
export class NotifierStateTooLargeError extends StateStoreError {
  constructor(
    readonly bytes: number,
    readonly limitBytes: number,
    options?: ErrorOptions,
  ) {
    super(
      `the notifier state is ${bytes} bytes compressed, over the ${limitBytes} a DynamoDB item may hold`,
      options,
    );
    this.name = 'NotifierStateTooLargeError';
  }
}
