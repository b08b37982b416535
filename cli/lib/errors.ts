/** Exit codes of the `telealert` command. */
export const EXIT = {
  ok: 0,
  /** A runtime failure: the API or the machine, not the user's input. */
  failure: 1,
  /** Invalid input: usage, rules file, timeline. */
  invalid: 2,
} as const;

/** Base class of the command line's own errors. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** The command line itself is wrong: an unknown command or option, a missing value. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.invalid);
    this.name = 'UsageError';
  }
}
