import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { clientOptions } from '../../functions/adapters/clients';
import { DynamoNotifierStore } from '../../functions/adapters/dynamodb-notifier';
import { DynamoStateStore } from '../../functions/adapters/dynamodb-state';
import { CliError, EXIT } from './errors';

/** The stack output naming the state table (`infra/stack.ts`). */
export const TABLE_OUTPUT = 'TableName';

/** The deployed stack's state, read and written with the user's own AWS credentials. */
export interface DeployedStores {
  readonly notifier: DynamoNotifierStore;
  readonly state: DynamoStateStore;
  /** `stack NAME (table T, region R)`: where people's commands act. */
  readonly where: string;
}

/**
 * Finds the state table of a deployed stack from its outputs (CloudFormation DescribeStacks)
 * and opens the notifier's and the pollers' stores on it. Credentials, region and endpoint come
 * from the environment as for the AWS CLI (`AWS_PROFILE`, `AWS_REGION`, ...): no endpoint of
 * telealert's own is involved.
 *
 * A crashed commit's leftover item the user's credentials cannot delete is said once on `warn`.
 *
 * @throws CliError (exit 1) when the stack cannot be read or has no table output.
 */
export async function deployedStores(
  stackName: string,
  warn: (text: string) => void,
): Promise<DeployedStores> {
  const limits = clientOptions({ requestTimeoutMs: 10_000 });
  const cloudformation = new CloudFormationClient(limits);
  let tableName: string | undefined;
  let region = '';
  try {
    region = await cloudformation.config.region();
    const { Stacks = [] } = await cloudformation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    tableName = Stacks[0]?.Outputs?.find(
      (output) => output.OutputKey === TABLE_OUTPUT,
    )?.OutputValue;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `cannot read stack ${stackName} (${reason}); check its name, AWS_REGION and your AWS credentials`,
      EXIT.failure,
      { cause: error },
    );
  } finally {
    cloudformation.destroy();
  }
  if (tableName === undefined || tableName === '') {
    throw new CliError(
      `stack ${stackName} has no ${TABLE_OUTPUT} output: is it a telealert stack? Deploy it with this telealert`,
      EXIT.failure,
    );
  }
  const client = new DynamoDBClient(limits);
  // Said once: one missing permission leaves every leftover item, each for the same reason.
  let warned = false;
  const onOrphanLeft = (sortKey: string, error: unknown) => {
    if (warned) return;
    warned = true;
    const reason = error instanceof Error ? error.message : String(error);
    warn(
      `telealert: cannot delete ${sortKey}, left by a crashed commit, in ${tableName} (${reason}); it expires with its TTL. Do your credentials allow dynamodb:DeleteItem?\n`,
    );
  };
  return {
    notifier: new DynamoNotifierStore({ client, tableName, onOrphanLeft }),
    state: new DynamoStateStore({ client, tableName, onOrphanLeft }),
    where: `stack ${stackName} (table ${tableName}, region ${region})`,
  };
}
