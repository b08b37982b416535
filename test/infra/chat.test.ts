import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAT_BUTTONS, CHAT_COMMAND_MAX, chatCommand, chatFunctionName } from '../../infra/chat';
import { FIXTURES, type Synth, synthStack } from './helpers';

const CHAT_CONFIG = join(FIXTURES, 'chat.yaml');
const NO_CHAT_CONFIG = join(FIXTURES, 'live-calls-only.yaml');

let synth: Synth;
let template: Template;

beforeAll(() => {
  synth = synthStack(CHAT_CONFIG);
  template = synth.template;
}, 180_000);

type Resource = { Properties: Record<string, unknown> };

function resources(type: string): Resource[] {
  return Object.values(template.findResources(type)) as Resource[];
}

/** The logical id of the topic a `Ref` or list of refs points at. */
function topicIds(value: unknown): string[] {
  return (value as { Ref: string }[]).map((ref) => ref.Ref);
}

function topicOf(channel: string): string {
  const [id] = Object.keys(template.findResources('AWS::SNS::Topic', {})).filter((logicalId) =>
    logicalId.startsWith(`TelealertChannel${channel}Topic`),
  );
  if (id === undefined) throw new Error(`no topic for ${channel}`);
  return id;
}

describe('Construct: ChatChannels', () => {
  it("subscribes a Slack configuration to the channel's topic, with the ids of the rules file", () => {
    const [slack, ...others] = resources('AWS::Chatbot::SlackChannelConfiguration');
    expect(others).toEqual([]);
    expect(slack?.Properties).toMatchObject({
      SlackWorkspaceId: 'T0123ABCD',
      SlackChannelId: 'C0456EFGH',
      ConfigurationName: 'Telealert-oncall-slack',
    });
    expect(topicIds(slack?.Properties.SnsTopicArns)).toEqual([topicOf('oncall')]);
  });

  it('subscribes a Teams configuration (the L1 resource) to each channel naming one', () => {
    const teams = resources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration');
    const byName = Object.fromEntries(teams.map((t) => [t.Properties.ConfigurationName, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'Telealert-managers-teams',
      'Telealert-oncall-teams',
    ]);
    expect(byName['Telealert-managers-teams']?.Properties).toMatchObject({
      TeamsTenantId: '8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b',
      TeamId: '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
      TeamsChannelId: '19%3afedcba9876543210%40thread.tacv2',
    });
    expect(topicIds(byName['Telealert-managers-teams']?.Properties.SnsTopicArns)).toEqual([
      topicOf('managers'),
    ]);
  });

  it('gives every configuration the one role and guardrail, and both buttons', () => {
    const configurations = [
      ...resources('AWS::Chatbot::SlackChannelConfiguration'),
      ...resources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration'),
    ];
    expect(configurations).toHaveLength(3);
    const roles = new Set(configurations.map((c) => JSON.stringify(c.Properties.IamRoleArn)));
    const guardrails = new Set(
      configurations.map((c) => JSON.stringify(c.Properties.GuardrailPolicies)),
    );
    const actions = new Set(
      configurations.map((c) => JSON.stringify(c.Properties.CustomizationResourceArns)),
    );
    expect([roles.size, guardrails.size, actions.size]).toEqual([1, 1, 1]);
    expect(JSON.parse([...actions][0] ?? '[]')).toHaveLength(CHAT_BUTTONS.length);
  });

  it("lets the chat role and its guardrail invoke the buttons' function, and nothing else", () => {
    const chatRole = Object.entries(template.findResources('AWS::IAM::Role')).find(([, role]) =>
      JSON.stringify(role).includes('chatbot.amazonaws.com'),
    );
    if (chatRole === undefined) throw new Error('no chat role');
    const [roleId] = chatRole;
    const guardrails = [
      ...new Set(
        resources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration').flatMap((c) =>
          (c.Properties.GuardrailPolicies as { Ref: string }[]).map((ref) => ref.Ref),
        ),
      ),
    ];
    const statements = [
      ...Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement),
      // The guardrail: the managed policy the configurations name (not the operators' policy).
      ...Object.entries(template.findResources('AWS::IAM::ManagedPolicy'))
        .filter(([id]) => guardrails.includes(id))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement),
    ];
    expect(guardrails).toHaveLength(1);
    expect(statements.length).toBeGreaterThanOrEqual(2);
    for (const statement of statements) {
      expect(statement.Action).toBe('lambda:InvokeFunction');
      expect(JSON.stringify(statement.Resource)).toMatch(/ChatAction[0-9A-F]{8}","Arn"/);
      expect(JSON.stringify(statement.Resource)).not.toContain('*');
    }
  });

  it("keeps the buttons' function to the notifier's items of the table", () => {
    const fnRole = Object.values(template.findResources('AWS::IAM::Policy')).find((p) =>
      JSON.stringify(p.Properties.Roles).includes('ChatActionRole'),
    );
    const table = fnRole?.Properties.PolicyDocument.Statement.find((s: { Action: unknown }) =>
      JSON.stringify(s.Action).includes('dynamodb:'),
    );
    expect(table.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['notifier'] },
    });
  });

  it('names no * action anywhere in the chat resources', () => {
    const chatJson = JSON.stringify(
      Object.entries(template.toJSON().Resources).filter(([id]) => id.includes('Chat')),
    );
    expect(chatJson).not.toMatch(/"Action":\s*"[^"]*\*/);
    expect(chatJson).not.toMatch(/"Action":\s*\[[^\]]*\*/);
  });

  it('puts Acknowledge and Silence 1h on messages that carry their target, running the function', () => {
    const actions = resources('AWS::Chatbot::CustomAction');
    expect(actions.map((a) => a.Properties.ActionName).sort()).toEqual([
      'Telealert-ack',
      'Telealert-silence',
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'Telealert-chat',
      Description: Match.stringLikeRegexp('Acknowledge and Silence 1h'),
    });
    for (const button of CHAT_BUTTONS) {
      template.hasResourceProperties('AWS::Chatbot::CustomAction', {
        ActionName: `Telealert-${button.action}`,
        Definition: {
          CommandText: `lambda invoke --function-name Telealert-chat --payload {"${button.action}":"$${button.variable}"}`,
        },
        Attachments: [
          {
            ButtonText: button.text,
            Variables: { [button.variable]: `event.metadata.additionalContext.${button.variable}` },
            Criteria: [{ Operator: 'HAS_VALUE', VariableName: button.variable }],
          },
        ],
      });
    }
  });

  it('keeps every command within the 100 characters the service takes, whatever the stack name', () => {
    for (const stackName of ['Telealert', 'a', `Telealert-${'production-'.repeat(11)}`]) {
      const name = chatFunctionName(stackName);
      expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      for (const button of CHAT_BUTTONS) {
        expect(chatCommand(name, button).length).toBeLessThanOrEqual(CHAT_COMMAND_MAX);
      }
    }
    // Two long stack names that share their first characters keep apart.
    const long = `Telealert-${'production-'.repeat(11)}`;
    expect(chatFunctionName(`${long}a`)).not.toBe(chatFunctionName(`${long}b`));
  });

  it("tells the notifier the stack's name for the commands it gives", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TELEALERT_STACK: 'Telealert' }) },
    });
  });

  it('is cdk-nag clean', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
  });

  it('creates none of it for a rules file without chat', () => {
    const plain = synthStack(NO_CHAT_CONFIG).template;
    for (const type of [
      'AWS::Chatbot::SlackChannelConfiguration',
      'AWS::Chatbot::MicrosoftTeamsChannelConfiguration',
      'AWS::Chatbot::CustomAction',
    ]) {
      expect(Object.keys(plain.findResources(type))).toEqual([]);
    }
    // The operators' policy alone: no guardrail.
    expect(Object.keys(plain.findResources('AWS::IAM::ManagedPolicy'))).toEqual([
      expect.stringMatching(/^OperatorsPolicy/),
    ]);
    expect(JSON.stringify(plain.toJSON())).not.toContain('chatbot.amazonaws.com');
    // The two pollers and the notifier: no chat action.
    expect(Object.keys(plain.findResources('AWS::Lambda::Function'))).toHaveLength(3);
  }, 60_000);
});
