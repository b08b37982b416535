import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListRulesCommand } from '@aws-sdk/client-eventbridge';
import { ListFunctionsCommand } from '@aws-sdk/client-lambda';
import { ListSubscriptionsCommand, ListTopicsCommand } from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { Clients } from './clients';

/**
 * What exists in the account and region, stack or not, of the kinds the stack makes (by name or
 * ARN, sorted): what `cdk destroy` left behind. The bootstrap stack makes none of these kinds.
 */
export async function accountInventory(): Promise<Record<string, string[]>> {
  const clients = new Clients();
  try {
    const sorted = (names: (string | undefined)[]) =>
      names.filter((n): n is string => n !== undefined).sort();
    const [topics, subscriptions, functions, tables, queues, alarms, logGroups, rules] =
      await Promise.all([
        clients.sns.send(new ListTopicsCommand({})).then((r) => r.Topics?.map((t) => t.TopicArn)),
        clients.sns
          .send(new ListSubscriptionsCommand({}))
          .then((r) => r.Subscriptions?.map((s) => s.SubscriptionArn)),
        clients.lambda
          .send(new ListFunctionsCommand({}))
          .then((r) => r.Functions?.map((f) => f.FunctionName)),
        clients.dynamodb.send(new ListTablesCommand({})).then((r) => r.TableNames),
        clients.sqs.send(new ListQueuesCommand({})).then((r) => r.QueueUrls),
        clients.cloudwatch
          .send(new DescribeAlarmsCommand({}))
          .then((r) => r.MetricAlarms?.map((a) => a.AlarmName)),
        clients.logs
          .send(new DescribeLogGroupsCommand({}))
          .then((r) => r.logGroups?.map((g) => g.logGroupName)),
        clients.events.send(new ListRulesCommand({})).then((r) => r.Rules?.map((x) => x.Name)),
      ]);
    return {
      topics: sorted(topics ?? []),
      subscriptions: sorted(subscriptions ?? []),
      functions: sorted(functions ?? []),
      tables: sorted(tables ?? []),
      queues: sorted(queues ?? []),
      alarms: sorted(alarms ?? []),
      logGroups: sorted(logGroups ?? []),
      rules: sorted(rules ?? []),
    };
  } finally {
    clients.destroy();
  }
}
