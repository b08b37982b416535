import { StateStoreError } from '../../shared/ports/errors';
import type { SourceName } from '../../shared/types/config';

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

/**
 * A source's state no longer fits one DynamoDB item, even compressed: too many alert instances
 * are live at once. Nothing is written; the message says how to bring the count down.
 */
export class StateTooLargeError extends StateStoreError {
  constructor(
    readonly source: SourceName,
    readonly bytes: number,
    readonly limitBytes: number,
    readonly alerts: number,
    options?: ErrorOptions,
  ) {
    super(
      `the state of ${source} is ${Math.ceil(bytes / 1024)} KB compressed (${alerts} live alert ` +
        `instances), over the ${Math.floor(limitBytes / 1024)} KB one DynamoDB item can safely ` +
        `hold: narrow the ${source} rules (fewer per-record rules, stricter where conditions)` +
        (source === 'payments' ? ' or shorten sources.payments.lookback' : '') +
        ', then redeploy',
      options,
    );
    this.name = 'StateTooLargeError';
  }
}

/** A sample queue message that is not a queued sample (sent by something else, or garbled). */
export class SampleMessageError extends RuntimeError {
  constructor(reason: string, options?: ErrorOptions) {
    super(`not a telealert sample message: ${reason}`, options);
    this.name = 'SampleMessageError';
  }
}
