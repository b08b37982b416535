import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { MissingFileError } from './errors';
import { type HandlerFunctionProps, handlerFunctionProps, NOTIFIER_ENTRY } from './poller';

/** The notifier's clock: EventBridge's shortest rate. */
const EVERY = Duration.minutes(1);

export type NotifierFunctionProps = HandlerFunctionProps;

/**
 * The notifier's own clock: a function bundled like the pollers (same rules, same aliases)
 * that runs one notifier step every minute, so what is due with no poller running goes out
 * (a held group, a digest at the start of active hours, the SMS the cap held) and what a
 * crashed step left owed is published. Pollers run the same step after each commit.
 */
export class NotifierFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: NotifierFunctionProps) {
    super(scope, id);
    const entry = join(props.functionsDir, NOTIFIER_ENTRY);
    if (!existsSync(entry)) throw new MissingFileError('handler entry of the notifier', entry);
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention });
    this.function = new NodejsFunction(this, 'Function', {
      ...handlerFunctionProps(props, entry, this.logGroup),
      timeout: Duration.seconds(50),
      maxEventAge: Duration.minutes(1),
    });
    this.schedule = new Rule(this, 'Schedule', {
      description: 'telealert: the notifier sends what is due (held groups, digests) every minute',
      schedule: Schedule.rate(EVERY),
      targets: [new LambdaFunction(this.function)],
    });
  }
}
