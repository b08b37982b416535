import type { DeployedChat, DeployedStack, StackResource } from './types';

type TemplateResources = Readonly<
  Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
>;

/** A template value that is a `Ref` or `Fn::GetAtt` of another resource: that resource's id. */
function referenced(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const ref = (value as { Ref?: unknown }).Ref;
  if (typeof ref === 'string') return ref;
  const att = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  return Array.isArray(att) && typeof att[0] === 'string' ? att[0] : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The stack's chat configurations from its template (moto keeps them as declared: there is no
 * chat service to ask), their topics resolved to the deployed ARNs and their buttons named.
 */
export function readChats(
  template: TemplateResources,
  resources: readonly StackResource[],
): DeployedChat[] {
  const physical = new Map(resources.map((r) => [r.logicalId, r.physicalId]));
  const chats: DeployedChat[] = [];
  for (const [logicalId, resource] of Object.entries(template)) {
    const p = resource.Properties ?? {};
    const slack = resource.Type === 'AWS::Chatbot::SlackChannelConfiguration';
    if (!slack && resource.Type !== 'AWS::Chatbot::MicrosoftTeamsChannelConfiguration') continue;
    const topics = list(p.SnsTopicArns).map((arn) => {
      const id = referenced(arn);
      return id === undefined ? String(arn) : (physical.get(id) ?? id);
    });
    const buttons = list(p.CustomizationResourceArns).map((arn) => {
      const id = referenced(arn);
      const name = id === undefined ? undefined : template[id]?.Properties?.ActionName;
      return typeof name === 'string' ? name : String(id ?? arn);
    });
    chats.push({
      logicalId,
      kind: slack ? 'Slack' : 'Microsoft Teams',
      where: slack
        ? `workspace ${String(p.SlackWorkspaceId)}, channel ${String(p.SlackChannelId)}`
        : `tenant ${String(p.TeamsTenantId)}, team ${String(p.TeamId)}, channel ${decodeURIComponent(String(p.TeamsChannelId))}`,
      topics,
      buttons,
    });
  }
  return chats;
}

/** The summary's lines: which chat channel would receive what, and with which buttons. */
export function chatLines(
  stack: DeployedStack,
  topicLabel: (stack: DeployedStack, arn: string) => string,
): string[] {
  if (stack.chats.length === 0) return [];
  const lines = [
    '',
    'Chat (Amazon Q Developer in chat applications; the simulator keeps the configurations and posts nothing)',
  ];
  for (const chat of stack.chats) {
    const channels = chat.topics.map((arn) => topicLabel(stack, arn)).join(', ');
    lines.push(`  ${chat.kind} ${chat.where}`);
    lines.push(
      `    would receive: every message to ${channels}, as its chat body (the https body of the publish)`,
    );
    if (chat.buttons.length > 0) lines.push(`    buttons: ${chat.buttons.join(', ')}`);
  }
  return lines;
}
