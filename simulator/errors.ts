/** Base class of the simulator's errors. */
export class SimulatorError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SimulatorError';
  }
}

/** `startSimulator` was given a scenario name that is not in `SCENARIOS`. */
export class UnknownScenarioError extends SimulatorError {
  constructor(
    readonly scenario: string,
    readonly known: readonly string[],
  ) {
    super(`unknown scenario "${scenario}": choose one of ${known.join(', ')}`);
    this.name = 'UnknownScenarioError';
  }
}

/** A request's query could not be understood; answered as HTTP 400. */
export class QueryError extends SimulatorError {
  constructor(
    readonly parameter: string,
    reason: string,
  ) {
    super(`${parameter}: ${reason}`);
    this.name = 'QueryError';
  }
}
