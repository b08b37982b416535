import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SOURCES } from '../shared/types/config';
import { MissingFileError } from './errors';
import { type HandlerFunctionProps, handlerFunctionProps, NOTIFIER_ENTRY } from './poller';

/** The notifier's clock: EventBridge's shortest rate. */
const EVERY = Duration.minutes(1);

/**
 * Which records of the state table's stream invoke the notifier: a source's state item written
 * (`pk` the source, `sk` `state`, as `functions/adapters/dynamodb-state-items.ts` keys it). That
 * write is a poller's commit point: its owed events are committed once it lands, so a look
 * then finds them. The notifier's own items (`pk` `notifier`) and the owed items it deletes
 * invoke nothing. Quiet samples write nothing, so a poller's run invokes it at most once a
 * sample. Keys only (the part of a record every DynamoDB filter may read); a state item's
 * removal (its TTL, after 30 idle days) would invoke one harmless round. Lambda's filter
 * syntax: each value a list of what matches.
 */
export const NOTIFIER_STREAM_FILTER = {
  dynamodb: { Keys: { pk: { S: [...SOURCES] }, sk: { S: ['state'] } } },
} as const;

export interface NotifierFunctionProps extends HandlerFunctionProps {
  /** The state table, with a stream: the pollers' commits invoke the notifier. */
  readonly table: ITable;
}

/**
 * The notifier function, bundled like the pollers (same rules, same aliases): alone, it turns
 * the alert events the pollers committed into messages (`functions/notifier-handler.ts`). The
 * table's stream invokes it when a poller commits, so a new group's first message goes within
 * a second or so; its schedule every minute sends what is due with no poller running (a held
 * group, a digest at the start of active hours, the SMS the cap held) and what a failed
 * invocation left. A stream record carries no event (the notifier reads the table), so a
 * record that could not invoke it loses nothing: one retry, then the next minute takes over.
 * Reserved concurrency 1: one round at a time.
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
      // No failure destination: a round is idempotent and the next minute's repeats it, and a
      // minute's event throttled behind a long stream-invoked round is no failure to page about
      // (its errors show as `Errors-notifier`).
      onFailure: undefined,
    });
    this.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 100,
        retryAttempts: 1,
        maxRecordAge: Duration.minutes(2),
        filters: [FilterCriteria.filter(NOTIFIER_STREAM_FILTER)],
      }),
    );
    this.schedule = new Rule(this, 'Schedule', {
      description: 'telealert: the notifier sends what is due (held groups, digests) every minute',
      schedule: Schedule.rate(EVERY),
      targets: [new LambdaFunction(this.function)],
    });
  }
}
