import { Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * The notifier's partition of the state table (`functions/adapters/dynamodb-requests.ts`
 * `NOTIFIER_PARTITION`; infra does not import functions, a test holds the two equal).
 */
export const OPERATOR_PARTITION = 'notifier';

/**
 * The least an operator needs for `telealert alerts|silence|ack --stack` (docs/operations.md):
 * read the stack's outputs, read the table (what fires is in the pollers' partitions too), and
 * change only the notifier's partition, where silences and acknowledgements live. Writes to a
 * poller's partition are refused: with them an operator could write owed events and have any
 * text sent to any channel. Attach the policy to the operators' role or group.
 */
export class OperatorPolicy extends Construct {
  readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: { readonly table: ITable }) {
    super(scope, id);
    const stack = Stack.of(this);
    this.policy = new ManagedPolicy(this, 'Policy', {
      description:
        'telealert operators: alerts, silence and ack with --stack (read the stack and its table, change the notifier partition only)',
      statements: [
        new PolicyStatement({
          sid: 'ReadTheStackOutputs',
          actions: ['cloudformation:DescribeStacks'],
          resources: [stack.stackId],
        }),
        new PolicyStatement({
          sid: 'ReadAlertState',
          actions: ['dynamodb:Query', 'dynamodb:GetItem'],
          resources: [props.table.tableArn],
        }),
        new PolicyStatement({
          sid: 'ChangeSilencesAndAcksOnly',
          actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
          resources: [props.table.tableArn],
          conditions: {
            'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [OPERATOR_PARTITION] },
          },
        }),
      ],
    });
  }
}
