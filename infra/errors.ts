/**
 * Synth-time errors of the CDK app. Each names the prop (or rules-file path) at fault and says
 * what to change, so `cdk synth` fails with a message a user can act on.
 */

/** Base class: catch every infra error with `instanceof InfraError`. */
export class InfraError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfraError';
  }
}

/** A construct prop, or a value from the rules file that shapes the stack, cannot be deployed. */
export class InvalidPropError extends InfraError {
  /** The offending prop, e.g. `memorySize` or `sources.payments.every`. */
  readonly prop: string;

  constructor(prop: string, reason: string, options?: { cause?: unknown }) {
    super(`TelealertAlerting: ${prop}: ${reason}`, options);
    this.name = 'InvalidPropError';
    this.prop = prop;
  }
}

/** A file the stack needs (rules file, function entry) is missing. */
export class MissingFileError extends InfraError {
  readonly path: string;

  constructor(what: string, path: string, options?: { cause?: unknown }) {
    super(`TelealertAlerting: ${what} not found: ${path}`, options);
    this.name = 'MissingFileError';
    this.path = path;
  }
}
