import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { parseDocument } from 'yaml';
import { loadConfigFile } from '../../shared/config/load';
import { readRulesText } from '../../shared/config/validate';
import { ManualClock } from '../../simulator/clock';
import { SPIKE_OFFSET_MS } from '../../simulator/scenarios/busy-evening';
import { startSimulator } from '../../simulator/server';
import { bootstrap, deploy, destroy, STACK_NAME, synth } from './cdk';
import { RehearsalError } from './errors';
import { loadDeployedHandler, scheduledEvent } from './handlers';
import { type KeptFunction, keepRunning, practiceLines, rateMs } from './keep';
import { listenToSubscriptions } from './listen';
import { ACCOUNT, checkMoto, REGION, startMotoAlongside } from './moto';
import { readDeployedStack, stackOutputs } from './stack';
import { StreamMapping } from './stream';
import { describeDelivery, describeStack } from './summary';
import type { Teardown } from './teardown';

const SIMULATOR_TOKEN = 'rehearsal-token';
/**
 * Where the first poll looks: the busy evening's first spike, its calls ringing for 100-130 s
 * (past `call-ringing-too-long`'s 90 s) and for at least 20 s more.
 */
const SCENARIO_POSITION_MS = SPIKE_OFFSET_MS + 130_000;

export interface RehearsalOptions {
  /** The user's rules file. */
  readonly configFile: string;
  readonly stdout: (text: string) => void;
  /**
   * Holds everything the rehearsal starts or makes, from the moment it exists: a Ctrl-C at any
   * point releases it all (main.ts) while the rehearsal is abandoned where it stands.
   */
  readonly teardown: Teardown;
  /** Leave the stack deployed and running on its schedules until Ctrl-C (`--keep`). */
  readonly keep?: boolean;
  /** The `telealert` subcommands, for the commands `--keep` offers to try. */
  readonly commands?: readonly string[];
}

/** Thrown when Ctrl-C stopped the rehearsal (after it cleaned up). */
export class RehearsalStoppedError extends RehearsalError {
  constructor() {
    super(
      'stopped by Ctrl-C; moto (and the stack deployed on it), the simulator and the temp folder are gone',
    );
    this.name = 'RehearsalStoppedError';
  }
}

function seconds(startMs: number): string {
  return `${((Date.now() - startMs) / 1000).toFixed(1)} s`;
}

/**
 * The user's rules file with `api.baseUrl` pointing at the simulator; nothing else changes, the
 * comments included.
 */
function rulesForSimulator(text: string, baseUrl: string): string {
  const document = parseDocument(text);
  document.setIn(['api', 'baseUrl'], baseUrl);
  return document.toString();
}

/**
 * `npm run deploy:local`: moto and the API simulator on loopback, `cdk bootstrap` and
 * `cdk deploy` of the user's rules (pointed at the simulator), a summary of what was created,
 * then either one scheduled run of each function's deployed code in this process with the
 * messages its subscribers would get and `cdk destroy`, or (`keep`) the functions on their
 * schedules until Ctrl-C. Whatever happens, what it started is stopped: by this function when it
 * ends, by `teardown` (main.ts) on Ctrl-C.
 */
export async function rehearse(options: RehearsalOptions): Promise<void> {
  const { stdout, teardown } = options;
  // Fails before anything starts, with the install line, when Python or moto is missing.
  checkMoto(process.env.MOTO_PYTHON ?? 'python3');
  const rules = loadConfigFile(options.configFile);
  const directory = await mkdtemp(join(tmpdir(), 'telealert-deploy-local-'));
  const folder = teardown.addFolder(directory);
  const clock = new ManualClock(Date.now());
  const simulator = await startSimulator({
    port: 0,
    scenario: 'busy-evening',
    token: SIMULATOR_TOKEN,
    clock,
    zone: rules.timezone,
  });
  // The simulator's clock is the wall clock, as the deployed functions' is.
  const follow = setInterval(() => clock.set(Date.now()), 250);
  follow.unref();
  const simulated = teardown.add('the API simulator', async () => {
    clearInterval(follow);
    await simulator.close();
  });
  const configFile = join(directory, basename(options.configFile));
  await writeFile(configFile, rulesForSimulator(readRulesText(options.configFile), simulator.url));
  const assembly = join(directory, 'cdk.out');
  stdout(
    `telealert deploy:local: a rehearsal of \`cdk deploy\` on moto; no AWS account is used.\n` +
      `  rules: ${options.configFile} (api.baseUrl -> the simulator at ${simulator.url})\n`,
  );

  let started = Date.now();
  const [moto] = await startMotoAlongside(synth(configFile, assembly, teardown), { teardown });
  moto.applyEnv();
  stdout(`ok  moto on ${moto.endpoint}, cdk synth (${seconds(started)})\n`);
  try {
    started = Date.now();
    await bootstrap(moto, assembly, teardown);
    stdout(`ok  cdk bootstrap aws://${ACCOUNT}/${REGION} (${seconds(started)})\n`);

    const ssm = new SSMClient({});
    try {
      await ssm.send(
        new PutParameterCommand({
          Name: rules.api.tokenParameter,
          Value: SIMULATOR_TOKEN,
          Type: 'SecureString',
        }),
      );
    } finally {
      ssm.destroy();
    }
    stdout(`ok  API token put in ${rules.api.tokenParameter} (SSM SecureString)\n`);

    started = Date.now();
    await deploy(moto, assembly, teardown);
    stdout(`ok  cdk deploy ${STACK_NAME} (${seconds(started)})\n\n`);

    const stack = await readDeployedStack(STACK_NAME);
    stdout(describeStack(stack));

    const listeners = await listenToSubscriptions(stack.topics, 'deploy-local-listener');
    const code = join(directory, 'code');
    // What the notifier's stream mapping does on AWS, which moto cannot: a poller's commit
    // invokes the notifier with the records its filter keeps.
    const streamed = stack.functions.flatMap((fn) =>
      fn.eventSources.filter((s) => s.arn.includes('/stream/')).map((source) => ({ fn, source })),
    );
    const mappings = await Promise.all(
      streamed.map(async ({ fn, source }) => ({
        fn,
        handler: await loadDeployedHandler(moto, fn, code, { quiet: true }),
        stream: await StreamMapping.open({
          streamArn: source.arn,
          ...(source.filters ? { filters: source.filters } : {}),
          ...(source.batchSize ? { batchSize: source.batchSize } : {}),
        }),
      })),
    );
    // The chat buttons' function has no schedule and no event source: a person's press runs it.
    const pressed = stack.functions.filter(
      (fn) => fn.schedules.length === 0 && fn.eventSources.length === 0,
    );
    const handlers = await Promise.all(
      stack.functions
        .filter((fn) => !pressed.includes(fn))
        .map((fn) => loadDeployedHandler(moto, fn, code, { quiet: true })),
    );
    // However long the deploy took, the first poll sees the busy evening's first spike.
    simulator.restartScenario(Date.now() - SCENARIO_POSITION_MS);

    if (options.keep) {
      stdout(practiceLines(moto, options.commands ?? []));
      const functions: KeptFunction[] = handlers.map((handler) => ({
        handler,
        everyMs: rateMs(handler.fn.schedules.find((s) => s.state !== 'DISABLED')?.expression),
        queueUrl: handler.fn.eventSources.some((s) => s.arn.startsWith('arn:aws:sqs:'))
          ? handler.environment.TELEALERT_SAMPLE_QUEUE_URL
          : undefined,
      }));
      await keepRunning({ stack, functions, mappings, listeners, stdout });
    }

    stdout(
      '\nOne scheduled run of each function, its deployed code run here against the simulator\n',
    );
    for (const fn of pressed) {
      stdout(`  ${fn.name}: not run here, it runs when someone presses a chat button\n`);
    }
    for (const handler of handlers) {
      const summary = await handler.invoke(scheduledEvent(handler.fn, Date.now()));
      stdout(`  ${handler.fn.name}: ${JSON.stringify(summary)}\n`);
      for (const mapping of mappings) {
        const rounds = await mapping.stream.deliver((event) => mapping.handler.invoke(event));
        for (const round of rounds) {
          stdout(`    -> ${mapping.fn.name} (the table's stream): ${JSON.stringify(round)}\n`);
        }
      }
      const lines: string[] = [];
      for (const listener of listeners.all) {
        lines.push(...describeDelivery(listener, await listeners.drain(listener), stack));
      }
      stdout(lines.length > 0 ? `${lines.join('\n')}\n` : '    -> nothing to send\n');
    }
    await listeners.close();
    for (const mapping of mappings) mapping.stream.close();
    if ((await stackOutputs(STACK_NAME)) !== undefined) {
      started = Date.now();
      await destroy(moto, assembly, teardown);
      stdout(
        `\nok  cdk destroy ${STACK_NAME} (${seconds(started)}); kept, as on AWS: the state ` +
          'table and the log groups (their removal policy is RETAIN)\n',
      );
    }
  } finally {
    if (!teardown.stopping) {
      await moto.stop();
      await simulated.release();
      await folder.release();
      stdout('ok  moto and the simulator stopped\n');
    }
  }
}
