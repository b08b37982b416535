/** Base class of the rehearsal's own errors: each message says what to do next. */
export class RehearsalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RehearsalError';
  }
}

/** The pinned moto release the launcher's CloudFormation models are written against. */
export const PINNED_MOTO = '5.2.1';
export const MOTO_INSTALL = `python3 -m pip install 'moto[server]==${PINNED_MOTO}'`;

/** No Python interpreter to run moto with. */
export class PythonMissingError extends RehearsalError {
  constructor(python: string, options?: ErrorOptions) {
    super(
      `${python} was not found: the rehearsal runs AWS locally on moto, a Python package. ` +
        `Install Python 3 (python.org, or your system's python3 package), then: ${MOTO_INSTALL}`,
      options,
    );
    this.name = 'PythonMissingError';
  }
}

/** Python is there, but moto's server (or the pinned release of it) is not. */
export class MotoMissingError extends RehearsalError {
  constructor(detail: string) {
    super(`${detail}: install it with ${MOTO_INSTALL}`);
    this.name = 'MotoMissingError';
  }
}

/** moto started but did not answer, or exited. */
export class MotoStartError extends RehearsalError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MotoStartError';
  }
}

/** A `cdk` command failed; the message ends with the end of its output. */
export class CdkCommandError extends RehearsalError {
  constructor(
    readonly command: string,
    readonly output: string,
    options?: ErrorOptions,
  ) {
    super(
      `\`cdk ${command}\` failed:\n${output.trim().split('\n').slice(-25).join('\n')}`,
      options,
    );
    this.name = 'CdkCommandError';
  }
}
