/**
 * `npm run deploy:local [-- --config telealert.yaml]`: the rehearsal of a deploy on moto
 * (rehearsal.ts). Exit 0 when it ran through, 1 when a step failed, 2 on an invalid rules file
 * or usage, 130 after Ctrl-C; the reason on stderr.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../../shared/config/errors';
import { processIo } from '../lib/io';
import { MOTO_INSTALL, PINNED_MOTO, RehearsalError } from './errors';
import { RehearsalStoppedError, rehearse } from './rehearsal';

const USAGE = `Usage: npm run deploy:local [-- --config telealert.yaml]

Deploys the rules file with the real \`cdk bootstrap\` and \`cdk deploy\` to moto (a local AWS
simulator, Python), prints what was created, runs each function once against the API
simulator and shows what its subscribers would be sent, then runs \`cdk destroy\`.
Needs python3 and moto ${PINNED_MOTO}: ${MOTO_INSTALL}
`;

async function main(): Promise<number> {
  const io = processIo();
  let configFile: string;
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: { config: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    configFile = values.config ?? 'telealert.yaml';
  } catch (error) {
    io.stderr(`deploy:local: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    await rehearse({ configFile, stdout: io.stdout, stopSignal: io.stopSignal });
    io.stdout(`\nRehearsal done. On AWS: npx cdk deploy -c config=${configFile}\n`);
    return 0;
  } catch (error) {
    if (error instanceof RehearsalStoppedError) {
      io.stderr(`deploy:local: ${error.message}\n`);
      return 130;
    }
    if (error instanceof ConfigError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    if (error instanceof RehearsalError) {
      io.stderr(`deploy:local: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main();
