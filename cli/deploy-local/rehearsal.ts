import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { parseDocument } from 'yaml';
import { loadConfigFile } from '../../shared/config/load';
import { readRulesText } from '../../shared/config/validate';
import { ManualClock } from '../../simulator/clock';
import { SPIKE_OFFSET_MS } from '../../simulator/scenarios/busy-evening';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { bootstrap, deploy, destroy, STACK_NAME, synth } from './cdk';
import { RehearsalError } from './errors';
import { loadDeployedHandler, scheduledEvent } from './handlers';
import { listenToSubscriptions } from './listen';
import { ACCOUNT, checkMoto, type MotoServer, REGION, startMotoAlongside } from './moto';
import { readDeployedStack, stackOutputs } from './stack';
import { StreamMapping } from './stream';
import { describeDelivery, describeStack } from './summary';

const SIMULATOR_TOKEN = 'rehearsal-token';
/** Where the rehearsal's one poll looks: the busy evening's first spike, calls still ringing. */
const SCENARIO_POSITION_MS = SPIKE_OFFSET_MS + 90_000;

export interface RehearsalOptions {
  /** The user's rules file. */
  readonly configFile: string;
  readonly stdout: (text: string) => void;
  /** Aborted by Ctrl-C: the rehearsal stops what it does, then destroys and stops moto. */
  readonly stopSignal: AbortSignal;
}

/** Thrown when Ctrl-C stopped the rehearsal (after it cleaned up). */
export class RehearsalStoppedError extends RehearsalError {
  constructor() {
    super('stopped by Ctrl-C; the stack was destroyed and moto stopped');
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
 * one scheduled run of each function's deployed code in this process with the messages its
 * subscribers would get, then `cdk destroy` and moto stopped, also after a failure or Ctrl-C.
 */
export async function rehearse(options: RehearsalOptions): Promise<void> {
  const { stdout, stopSignal } = options;
  const checkStop = () => {
    if (stopSignal.aborted) throw new RehearsalStoppedError();
  };
  // Fails before anything starts, with the install line, when Python or moto is missing.
  checkMoto(process.env.MOTO_PYTHON ?? 'python3');
  const rules = loadConfigFile(options.configFile);
  const directory = await mkdtemp(join(tmpdir(), 'telealert-deploy-local-'));
  let moto: MotoServer | undefined;
  let simulator: RunningSimulator | undefined;
  let assembly: string | undefined;
  const forceQuit = () => {
    stdout('Stopping at once: moto is killed, nothing is left on this machine but temp files.\n');
    process.exit(130);
  };
  const onStop = () => {
    stdout(
      '\nCtrl-C: stopping after this step, then destroying the stack (Ctrl-C again to quit).\n',
    );
    process.once('SIGINT', forceQuit);
  };
  stopSignal.addEventListener('abort', onStop, { once: true });
  try {
    const clock = new ManualClock(Date.now() - SCENARIO_POSITION_MS);
    simulator = await startSimulator({
      port: 0,
      scenario: 'busy-evening',
      token: SIMULATOR_TOKEN,
      clock,
      zone: rules.timezone,
    });
    clock.set(Date.now());
    const configFile = join(directory, basename(options.configFile));
    await writeFile(
      configFile,
      rulesForSimulator(readRulesText(options.configFile), simulator.url),
    );
    assembly = join(directory, 'cdk.out');
    stdout(
      `telealert deploy:local: a rehearsal of \`cdk deploy\` on moto; no AWS account is used.\n` +
        `  rules: ${options.configFile} (api.baseUrl -> the simulator at ${simulator.url})\n`,
    );

    let started = Date.now();
    [moto] = await startMotoAlongside(synth(configFile, assembly));
    moto.applyEnv();
    stdout(`ok  moto on ${moto.endpoint}, cdk synth (${seconds(started)})\n`);
    checkStop();

    started = Date.now();
    await bootstrap(moto, assembly);
    stdout(`ok  cdk bootstrap aws://${ACCOUNT}/${REGION} (${seconds(started)})\n`);
    checkStop();

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
    await deploy(moto, assembly);
    stdout(`ok  cdk deploy ${STACK_NAME} (${seconds(started)})\n\n`);
    checkStop();

    const stack = await readDeployedStack(STACK_NAME);
    stdout(describeStack(stack));
    checkStop();

    stdout(
      '\nOne scheduled run of each function, its deployed code run here against the simulator\n',
    );
    const listeners = await listenToSubscriptions(stack.topics, 'deploy-local-listener');
    const code = join(directory, 'code');
    const server = moto;
    // What the notifier's stream mapping does on AWS, which moto cannot: a poller's commit
    // invokes the notifier with the records its filter keeps.
    const streamed = stack.functions.flatMap((fn) =>
      fn.eventSources.filter((s) => s.arn.includes('/stream/')).map((source) => ({ fn, source })),
    );
    const mappings = await Promise.all(
      streamed.map(async ({ fn, source }) => ({
        fn,
        handler: await loadDeployedHandler(server, fn, code, { quiet: true }),
        stream: await StreamMapping.open({
          streamArn: source.arn,
          ...(source.filters ? { filters: source.filters } : {}),
          ...(source.batchSize ? { batchSize: source.batchSize } : {}),
        }),
      })),
    );
    for (const fn of stack.functions) {
      checkStop();
      const handler = await loadDeployedHandler(moto, fn, code, { quiet: true });
      clock.set(Date.now());
      const summary = await handler.invoke(scheduledEvent(fn, Date.now()));
      stdout(`  ${fn.name}: ${JSON.stringify(summary)}\n`);
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
  } finally {
    stopSignal.removeEventListener('abort', onStop);
    try {
      if (moto && assembly && (await stackOutputs(STACK_NAME)) !== undefined) {
        const started = Date.now();
        await destroy(moto, assembly);
        stdout(
          `\nok  cdk destroy ${STACK_NAME} (${seconds(started)}); kept, as on AWS: the state ` +
            'table and the log groups (their removal policy is RETAIN)\n',
        );
      }
    } finally {
      await moto?.stop();
      await simulator?.close();
      await rm(directory, { recursive: true, force: true });
      process.off('SIGINT', forceQuit);
      stdout('ok  moto and the simulator stopped\n');
    }
  }
  checkStop();
}
