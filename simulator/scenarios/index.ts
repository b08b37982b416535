import { busyEvening } from './busy-evening';
import { quiet } from './quiet';
import { stuckPayment } from './stuck-payment';
import type { Scenario } from './types';

export const SCENARIO_NAMES = ['quiet', 'busy-evening', 'stuck-payment'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** Every built-in scenario by name. */
export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = {
  quiet,
  'busy-evening': busyEvening,
  'stuck-payment': stuckPayment,
};

/** One line per scenario, for `--help` and docs/simulator.md. */
export const SCENARIO_DESCRIPTIONS: Readonly<Record<ScenarioName, string>> = {
  quiet: quiet.description,
  'busy-evening': busyEvening.description,
  'stuck-payment': stuckPayment.description,
};

/** The lively one `npm start` uses. */
export const DEFAULT_SCENARIO: ScenarioName = 'busy-evening';

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

export type { CallEvent, PaymentEvent, Scenario, WindowEvents } from './types';
