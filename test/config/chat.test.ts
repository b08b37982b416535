import { describe, expect, it } from 'vitest';
import { chatChannelNames } from '../../shared/config/chat-channels';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';

const TENANT = '8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b';
const TEAM = '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';

function rules(oncall: string): string {
  return `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: ${oncall}
  finance: { email: [finance@example.com] }
rules: []
`;
}

function errorsOf(text: string): string[] {
  try {
    parseConfig(text, 'telealert.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

describe('Function: parseConfig (channels: slack, teams)', () => {
  it('reads a Slack and a Teams channel with the ids as AWS documents them', () => {
    const config = parseConfig(
      rules(
        `{ email: [a@example.com], slack: { workspaceId: T0123ABCD, channelId: C0456EFGH }, teams: { tenantId: ${TENANT}, teamId: ${TEAM}, channelId: "19%3a0123abcd%40thread.tacv2" } }`,
      ),
      'telealert.yaml',
    );
    expect(config.channels.oncall?.slack).toEqual({
      workspaceId: 'T0123ABCD',
      channelId: 'C0456EFGH',
    });
    expect(config.channels.oncall?.teams?.channelId).toBe('19%3a0123abcd%40thread.tacv2');
    expect([...chatChannelNames(config)]).toEqual(['oncall']);
  });

  it('allows a channel that only chats (no SMS, no email)', () => {
    const config = parseConfig(
      rules('{ slack: { workspaceId: T0123ABCD, channelId: C0456EFGH } }'),
      'telealert.yaml',
    );
    expect(config.channels.oncall?.email).toEqual([]);
  });

  it('names every wrong id, a missing one and an unknown key, all at once', () => {
    expect(
      errorsOf(
        rules(
          `{ slack: { workspaceId: t0123abcd, channelId: "C-1", team: x }, teams: { tenantId: nope, teamId: ${TEAM}, channelId: "19:abc@thread.tacv2" } }`,
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^telealert\.yaml: channels\.oncall\.slack\.workspaceId: must be the Slack workspace id/,
      ),
      expect.stringMatching(
        /^telealert\.yaml: channels\.oncall\.slack\.channelId: must be the Slack channel id/,
      ),
      'telealert.yaml: channels.oncall.slack.team: unknown key',
      expect.stringMatching(
        /^telealert\.yaml: channels\.oncall\.teams\.tenantId: must be the Microsoft 365 tenant id/,
      ),
      expect.stringMatching(
        /^telealert\.yaml: channels\.oncall\.teams\.channelId: must be the Teams channel id as the channel link has it, URL-encoded/,
      ),
    ]);
    expect(errorsOf(rules('{ teams: { tenantId: x } }'))).toEqual(
      expect.arrayContaining([
        'telealert.yaml: channels.oncall.teams.teamId: is required',
        'telealert.yaml: channels.oncall.teams.channelId: is required',
      ]),
    );
  });

  it('gives no channel chat when none has a Slack or Teams channel', () => {
    const config = parseConfig(rules('{ email: [a@example.com] }'), 'telealert.yaml');
    expect(chatChannelNames(config).size).toBe(0);
  });
});
