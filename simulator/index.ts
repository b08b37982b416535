/** The API simulator: a real HTTP server on loopback, scenarios, faults and clocks. */
export { type Clock, fastClock, ManualClock, systemClock } from './clock';
export { QueryError, SimulatorError, UnknownScenarioError } from './errors';
export {
  FAULT_DESCRIPTIONS,
  type Fault,
  type FaultKind,
  type FaultPlan,
} from './faults';
export { generateLiveCalls, generatePayments } from './generate';
export type { RawRecord } from './records';
export { liveCallsAt, paymentsAt, type ScenarioRun } from './scenario-run';
export {
  DEFAULT_SCENARIO,
  SCENARIO_DESCRIPTIONS,
  SCENARIO_NAMES,
  SCENARIOS,
  type Scenario,
  type ScenarioName,
} from './scenarios/index';
export {
  DEFAULT_TOKEN,
  DEFAULT_ZONE,
  type RecordedRequest,
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from './server';
