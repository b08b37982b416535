import * as z from '../schema/zod';

/*
 * A channel's chat destinations (contract section 9): Slack and Microsoft Teams channels that
 * Amazon Q Developer in chat applications (formerly AWS Chatbot) subscribes to the channel's
 * topic. The id shapes are CloudFormation's own (the AWS::Chatbot::SlackChannelConfiguration and
 * AWS::Chatbot::MicrosoftTeamsChannelConfiguration resource schemas), so a rules file that
 * passes here is not refused half-way through a deploy.
 */

/** `SlackWorkspaceId`: upper-case letters and digits, e.g. T0123ABCD. */
const SLACK_WORKSPACE_ID = /^[0-9A-Z]{1,255}$/;
/** `SlackChannelId`: letters and digits, e.g. C0456EFGH. */
const SLACK_CHANNEL_ID = /^[A-Za-z0-9]{1,256}$/;
/** `TeamsTenantId`, `TeamId`: a GUID. */
const GUID = /^[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}$/;
/**
 * `TeamsChannelId`: the channel id as it stands, URL-encoded, in the channel's link
 * (`19%3a...%40thread.tacv2`); CloudFormation refuses it decoded.
 */
const TEAMS_CHANNEL_ID = /^[a-zA-Z0-9\-_=+/.,]*%3[aA][a-zA-Z0-9\-_=+/.,]*%40[a-zA-Z0-9\-_=+/.,]*$/;

function id(pattern: RegExp, error: string) {
  return z.string().check(z.regex(pattern, { error }));
}

export const slackSchema = z.strictObject({
  workspaceId: id(
    SLACK_WORKSPACE_ID,
    'must be the Slack workspace id, upper-case letters and digits (e.g. T0123ABCD): the console shows it once the workspace is authorised (docs/chat.md)',
  ),
  channelId: id(
    SLACK_CHANNEL_ID,
    'must be the Slack channel id, letters and digits (e.g. C0456EFGH): the end of the channel link Slack copies',
  ),
});

const GUID_HINT = 'a GUID like 8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b';

export const teamsSchema = z.strictObject({
  tenantId: id(
    GUID,
    `must be the Microsoft 365 tenant id, ${GUID_HINT} (tenantId= in the channel link)`,
  ),
  teamId: id(GUID, `must be the team id, ${GUID_HINT} (groupId= in the channel link)`),
  channelId: id(
    TEAMS_CHANNEL_ID,
    'must be the Teams channel id as the channel link has it, URL-encoded (19%3a...%40thread.tacv2)',
  ),
});
