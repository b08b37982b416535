/**
 * `cdk synth` / `cdk deploy` entry (cdk.json runs it with tsx). The rules file comes from
 * `-c config=PATH` (default `telealert.yaml`) and is validated here: a bad file fails the synth
 * with exactly the lines `telealert validate` prints.
 */
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { ConfigError } from '../shared/config/errors';
import { addNagChecks } from './nag';
import { TelealertStack } from './stack';

const DEFAULT_CONFIG = 'telealert.yaml';
const DEFAULT_STACK_NAME = 'Telealert';

/** Builds the app from its context (`config`, `stackName`). Throws `ConfigError` on a bad file. */
export function buildApp(app: App = new App({ autoSynth: false })): App {
  const config = String(app.node.tryGetContext('config') ?? DEFAULT_CONFIG);
  const stackName = String(app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME);
  new TelealertStack(app, stackName, {
    alerting: { configFile: resolve(config) },
    description: 'telealert: threshold alerts on live calls and online payments via SNS',
  });
  addNagChecks(app);
  return app;
}

/** No auto-synth: a half-built app (the rules file threw) must not write an empty stack. */
function main(): void {
  try {
    buildApp().synth();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
