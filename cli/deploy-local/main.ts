/**
 * `npm run deploy:local [-- --config telealert.yaml] [--keep]`: the rehearsal of a deploy on moto
 * (rehearsal.ts). Exit 0 when it ran through, 1 when a step failed, 2 on an invalid rules file
 * or usage, 130 after Ctrl-C; the reason on stderr.
 *
 * Ctrl-C is handled from the first line on: everything the rehearsal started is registered in a
 * `Teardown` as it comes to exist (moto and each `cdk` run in process groups of their own, which
 * the terminal's Ctrl-C does not reach), so the handler releases all of it wherever the rehearsal
 * stands, then exits 130. A second Ctrl-C kills what is left at once.
 */
import { Teardown } from './teardown';

const teardown = new Teardown();
const write = (stream: NodeJS.WriteStream, text: string) => {
  try {
    stream.write(text);
  } catch {
    // A reader that went away: nothing to tell.
  }
};
let interrupted = false;
function onInterrupt(): void {
  if (interrupted) {
    teardown.releaseAllNow();
    write(process.stderr, 'deploy:local: stopped at once; moto and every cdk process killed\n');
    process.exit(130);
  }
  interrupted = true;
  write(
    process.stdout,
    '\nCtrl-C: stopping moto (the stack deployed on it goes with it), the simulator and any cdk ' +
      'command, and removing the temp folder (Ctrl-C again to quit at once)\n',
  );
  void teardown.releaseAll().then(() => {
    write(process.stdout, 'ok  moto and the simulator stopped, the temp folder removed\n');
    write(process.stderr, 'deploy:local: stopped by Ctrl-C; nothing is left running\n');
    process.exit(130);
  });
}
process.on('SIGINT', onInterrupt);
process.on('SIGTERM', onInterrupt);
// Whatever ends the process (an uncaught error included), nothing it started outlives it.
process.on('exit', () => teardown.releaseAllNow());

const { parseArgs } = await import('node:util');
const { ConfigError } = await import('../../shared/config/errors');
const { COMMAND_NAMES } = await import('../main');
const { MOTO_INSTALL, PINNED_MOTO, RehearsalError } = await import('./errors');
const { rehearse } = await import('./rehearsal');

const USAGE = `Usage: npm run deploy:local [-- --config telealert.yaml] [--keep]

Deploys the rules file with the real \`cdk bootstrap\` and \`cdk deploy\` to moto (a local AWS
simulator, Python), prints what was created, runs each function once against the API
simulator and shows what its subscribers would be sent, then runs \`cdk destroy\`.

--keep  leaves the stack deployed and running instead: each function on its schedule against
        the API simulator (its busy evening, calls piling up every 30 minutes), each SMS and
        email shown as it is sent, and the commands to practise the runbook on it from another
        shell. Ctrl-C tears everything down.

Needs python3 and moto ${PINNED_MOTO}: ${MOTO_INSTALL}
`;

/** Never settles: the Ctrl-C handler ends the process once everything is released. */
const untilTornDown = () => new Promise<number>(() => {});

async function main(): Promise<number> {
  let configFile: string;
  let keep: boolean;
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        config: { type: 'string' },
        keep: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
    if (values.help) {
      write(process.stdout, USAGE);
      return 0;
    }
    configFile = values.config ?? 'telealert.yaml';
    keep = values.keep ?? false;
  } catch (error) {
    write(process.stderr, `deploy:local: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    await rehearse({
      configFile,
      keep,
      commands: COMMAND_NAMES,
      teardown,
      stdout: (text) => write(process.stdout, text),
    });
    write(process.stdout, `\nRehearsal done. On AWS: npx cdk deploy -c config=${configFile}\n`);
    return 0;
  } catch (error) {
    // Work abandoned by Ctrl-C fails as its processes are killed: the handler speaks for it.
    if (teardown.stopping) return untilTornDown();
    await teardown.releaseAll();
    if (error instanceof ConfigError) {
      write(process.stderr, `${error.message}\n`);
      return 2;
    }
    if (error instanceof RehearsalError) {
      write(process.stderr, `deploy:local: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main();
