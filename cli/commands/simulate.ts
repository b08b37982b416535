import { fastClock } from '../../simulator/clock';
import { SCENARIO_NAMES } from '../../simulator/scenarios';
import { startSimulator } from '../../simulator/server';
import { EXIT, UsageError } from '../lib/errors';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';
import { readNumber, readScenario } from '../lib/options';
import { readFaults } from './fault-option';

const DEFAULT_PORT = 8787;
const DEFAULT_TOKEN = 'sim-token';

/** `telealert simulate`: the API simulator on 127.0.0.1 until Ctrl-C. */
export async function simulateCommand(options: CliOptions, io: Io): Promise<number> {
  const port = readNumber(options.port, 'port', DEFAULT_PORT, { min: 0, max: 65_535, whole: true });
  const speed = readNumber(options.speed, 'speed', 1, { min: 0.001, max: 100_000 });
  const seed = readNumber(options.seed, 'seed', 1, { min: 0, max: 2 ** 32 - 1, whole: true });
  const scenario = readScenario(options.scenario, 'busy-evening');
  const faults = readFaults(options.fault);
  const token = options.token ?? DEFAULT_TOKEN;
  if (token.trim() === '') throw new UsageError('--token must not be empty');

  const simulator = await startSimulator({
    port,
    scenario,
    seed,
    token,
    clock: fastClock(Date.now(), speed),
    faults,
  });
  io.stderr(
    `simulator: ${simulator.url} (scenario ${scenario}, seed ${seed}, ${speed}x)\n` +
      `  curl -H 'authorization: Bearer ${token}' ${simulator.url}/v1/live_calls\n` +
      `  scenarios: ${SCENARIO_NAMES.join(', ')}; Ctrl-C stops\n` +
      Object.entries(faults)
        .map(([endpoint, fault]) => `  fault on ${endpoint}: ${JSON.stringify(fault)}\n`)
        .join(''),
  );
  await new Promise<void>((resolve) => {
    if (io.stopSignal.aborted) resolve();
    io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
  });
  await simulator.close();
  io.stderr('simulator: stopped\n');
  return EXIT.ok;
}
