import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TelealertAlerting, type TelealertAlertingProps } from './alerting';
import { acknowledgeNagFindings } from './nag';
import { OperatorPolicy } from './operator';

export interface TelealertStackProps extends StackProps {
  /** Everything the construct takes; `configFile` at least. */
  readonly alerting: TelealertAlertingProps;
}

/** The deployable stack: the `TelealertAlerting` construct and the outputs a user needs. */
export class TelealertStack extends Stack {
  readonly alerting: TelealertAlerting;

  constructor(scope: Construct, id: string, props: TelealertStackProps) {
    super(scope, id, props);
    this.alerting = new TelealertAlerting(this, 'Telealert', props.alerting);
    acknowledgeNagFindings(this.alerting);

    for (const [name, topic] of Object.entries(this.alerting.topics)) {
      new CfnOutput(this, `TopicArn-${name}`, {
        description: `SNS topic of channel ${name}`,
        value: topic.topicArn,
      });
    }
    for (const [name, topic] of Object.entries(this.alerting.alarmTopics)) {
      if (topic === this.alerting.topics[name]) continue;
      new CfnOutput(this, `AlarmTopicArn-${name}`, {
        description: `SNS topic of telealert's own alarms for channel ${name} (it has minSeverity)`,
        value: topic.topicArn,
      });
    }
    new CfnOutput(this, 'TableName', {
      description: 'DynamoDB table with alert state and owed notifications',
      value: this.alerting.table.tableName,
    });
    const operators = new OperatorPolicy(this, 'Operators', { table: this.alerting.table });
    new CfnOutput(this, 'OperatorPolicyArn', {
      description:
        'Managed policy for the people who run `telealert alerts|silence|ack --stack`: attach it to their role or group',
      value: operators.policy.managedPolicyArn,
    });
    const dashboardName = this.alerting.dashboard.dashboard.dashboardName;
    new CfnOutput(this, 'DashboardUrl', {
      description: 'CloudWatch dashboard',
      value: `https://${this.region}.console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${dashboardName}`,
    });
  }
}
