import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, Stack, Token } from 'aws-cdk-lib';
import {
  CfnCustomAction,
  CfnMicrosoftTeamsChannelConfiguration,
  type CfnSlackChannelConfiguration,
  SlackChannelConfiguration,
} from 'aws-cdk-lib/aws-chatbot';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { chatChannelNames } from '../shared/config/chat-channels';
import { InvalidPropError, MissingFileError } from './errors';
import { OPERATOR_PARTITION } from './operator';
import { POLLER_TABLE_ACTIONS } from './permissions';
import { type HandlerFunctionProps, handlerFunctionProps } from './poller';

/** The chat buttons' function entry, in the functions folder. */
export const CHAT_ACTION_ENTRY = 'chat-action.ts';

/**
 * The buttons: each runs the chat-action function with the message's target. Variables are
 * read from the custom notification (`shared/notifier/chat.ts` puts them in
 * `metadata.additionalContext`); the button shows only where its target is present, i.e. on
 * a telealert message that tells firing alerts of one rule.
 */
export const CHAT_BUTTONS = [
  { id: 'Acknowledge', action: 'ack', text: 'Acknowledge', variable: 'ackTarget' },
  { id: 'Silence1h', action: 'silence', text: 'Silence 1h', variable: 'silenceTarget' },
] as const;

/**
 * A custom action's command, at most: the service's API reference bounds `CommandText` to 100
 * characters (CloudFormation's reference says 5,000; the smaller one is kept), so the function
 * has a short name of its own and the payload one variable (docs/chat.md).
 */
export const CHAT_COMMAND_MAX = 100;

/** The buttons' function name: the stack's, short enough for the command. */
export function chatFunctionName(stackName: string): string {
  const name = `${stackName}-chat`;
  if (name.length <= 30) return name;
  // Stack names are unique in an account's region: a digest of the whole one keeps this so.
  const digest = createHash('sha256').update(stackName).digest('hex').slice(0, 6);
  return `${stackName.slice(0, 23)}-${digest}`;
}

/** What a button runs: `lambda invoke` of the function, with the message's target. */
export function chatCommand(functionName: string, button: (typeof CHAT_BUTTONS)[number]): string {
  return `lambda invoke --function-name ${functionName} --payload {"${button.action}":"$${button.variable}"}`;
}

export interface ChatChannelsProps extends Omit<HandlerFunctionProps, 'role'> {
  /** Channel name -> its topic, which the chat configurations subscribe to. */
  readonly topics: Readonly<Record<string, ITopic>>;
  /** The state table: the buttons change the notifier's state in it. */
  readonly table: ITable;
}

/** A name CloudFormation takes for a configuration or an action: `[A-Za-z0-9_-]`, bounded. */
function resourceName(parts: readonly string[], max: number): string {
  return parts
    .join('-')
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .slice(0, max);
}

/**
 * Slack and Microsoft Teams through Amazon Q Developer in chat applications (contract section
 * 9), for the channels of the rules file that name one: a channel configuration subscribed to
 * the channel's topic, a role and guardrail policy that allow one thing, invoking the buttons'
 * function, and the Acknowledge and Silence 1h buttons. The workspace or team is authorised
 * once in the console beforehand (docs/chat.md). Created only when a channel has chat.
 */
export class ChatChannels extends Construct {
  /** The function the buttons run: the notifier's partition of the table, nothing else. */
  readonly actionFunction: NodejsFunction;
  readonly logGroup: LogGroup;
  /** What the chat service runs with (and what its users may do at most). */
  readonly role: Role;
  readonly guardrail: ManagedPolicy;
  readonly actions: readonly CfnCustomAction[];
  readonly slack: Readonly<Record<string, SlackChannelConfiguration>>;
  readonly teams: Readonly<Record<string, CfnMicrosoftTeamsChannelConfiguration>>;

  constructor(scope: Construct, id: string, props: ChatChannelsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    if (Token.isUnresolved(stackName)) {
      throw new InvalidPropError(
        'stackName',
        'a chat stack needs a concrete name (its buttons name the function)',
      );
    }
    const functionName = chatFunctionName(stackName);
    const entry = join(props.functionsDir, CHAT_ACTION_ENTRY);
    if (!existsSync(entry)) throw new MissingFileError('handler entry of the chat buttons', entry);

    const functionRole = new Role(this, 'ActionRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: "telealert chat buttons: the notifier's state in the table, own logs",
    });
    functionRole.addToPolicy(
      new PolicyStatement({
        // The notifier store's read (Query), conditional state write (UpdateItem) and clean-up
        // of orphans and expired tombstones (DeleteItem): a press owes no message, so no
        // BatchWriteItem. On the notifier's items only (as the operator policy): the pollers'
        // state and owed events stay out of reach.
        actions: [...POLLER_TABLE_ACTIONS],
        resources: [props.table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [OPERATOR_PARTITION] },
        },
      }),
    );
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention });
    this.actionFunction = new NodejsFunction(this, 'Action', {
      ...handlerFunctionProps(
        { ...props, role: functionRole, reserveConcurrency: false },
        entry,
        this.logGroup,
      ),
      functionName,
      description: 'telealert: the Acknowledge and Silence 1h chat buttons',
      timeout: Duration.seconds(15),
    });
    this.logGroup.grantWrite(functionRole);

    const invoke = new PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: [this.actionFunction.functionArn],
    });
    this.guardrail = new ManagedPolicy(this, 'Guardrail', {
      description: 'telealert chat channels: at most the buttons, whoever asks',
      statements: [invoke],
    });
    this.role = new Role(this, 'ChannelRole', {
      assumedBy: new ServicePrincipal('chatbot.amazonaws.com'),
      description: 'telealert chat channels: run the Acknowledge and Silence 1h buttons',
    });
    this.role.addToPolicy(invoke);

    this.actions = CHAT_BUTTONS.map((button) => {
      const commandText = chatCommand(functionName, button);
      if (commandText.length > CHAT_COMMAND_MAX) {
        throw new InvalidPropError(
          'stackName',
          `the ${button.text} button's command is ${commandText.length} characters, over ${CHAT_COMMAND_MAX}`,
        );
      }
      return new CfnCustomAction(this, button.id, {
        actionName: resourceName([stackName, button.action], 64),
        definition: { commandText },
        attachments: [
          {
            buttonText: button.text,
            variables: { [button.variable]: `event.metadata.additionalContext.${button.variable}` },
            criteria: [{ operator: 'HAS_VALUE', variableName: button.variable }],
          },
        ],
      });
    });
    const actionArns = this.actions.map((action) => action.attrCustomActionArn);

    const slack: Record<string, SlackChannelConfiguration> = {};
    const teams: Record<string, CfnMicrosoftTeamsChannelConfiguration> = {};
    for (const name of chatChannelNames(props.config)) {
      const channel = props.config.channels[name];
      const topic = props.topics[name];
      if (channel === undefined || topic === undefined) continue;
      if (channel.slack !== undefined) {
        const configuration = new SlackChannelConfiguration(this, `Slack-${name}`, {
          slackChannelConfigurationName: resourceName([stackName, name, 'slack'], 128),
          slackWorkspaceId: channel.slack.workspaceId,
          slackChannelId: channel.slack.channelId,
          notificationTopics: [topic],
          role: this.role,
          guardrailPolicies: [this.guardrail],
        });
        (
          configuration.node.defaultChild as CfnSlackChannelConfiguration
        ).customizationResourceArns = actionArns;
        slack[name] = configuration;
      }
      if (channel.teams !== undefined) {
        teams[name] = new CfnMicrosoftTeamsChannelConfiguration(this, `Teams-${name}`, {
          configurationName: resourceName([stackName, name, 'teams'], 128),
          teamsTenantId: channel.teams.tenantId,
          teamId: channel.teams.teamId,
          teamsChannelId: channel.teams.channelId,
          iamRoleArn: this.role.roleArn,
          snsTopicArns: [topic.topicArn],
          guardrailPolicies: [this.guardrail.managedPolicyArn],
          customizationResourceArns: actionArns,
        });
      }
    }
    this.slack = slack;
    this.teams = teams;
  }
}
