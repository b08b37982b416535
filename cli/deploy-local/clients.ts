import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/** The clients the readers use; built from the environment (`AWS_ENDPOINT_URL`, region). */
export class Clients {
  readonly cloudformation = new CloudFormationClient({});
  readonly lambda = new LambdaClient({});
  readonly events = new EventBridgeClient({});
  readonly sns = new SNSClient({});
  // moto's CloudFormation names a queue by its AWS URL: send to the endpoint, not that host.
  readonly sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  readonly dynamodb = new DynamoDBClient({});
  readonly cloudwatch = new CloudWatchClient({});
  readonly logs = new CloudWatchLogsClient({});

  destroy(): void {
    for (const client of Object.values(this)) (client as { destroy(): void }).destroy();
  }
}
