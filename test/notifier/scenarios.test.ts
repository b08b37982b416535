import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/notifier/types';
import type * as z from '../../shared/schema/zod';
import { formatApiDateTime } from '../../shared/time/zone';
import { replayMessages } from '../../shared/timeline/messages';
import { type Expected, SCENARIO_FILES as files, loadScenario as load } from './scenario-files';

function shown(message: Message, zone: string, expected: z.infer<typeof Expected> | undefined) {
  const clock = (iso: string) => formatApiDateTime(Date.parse(iso), zone);
  return {
    at: clock(message.at),
    channel: message.channel,
    kind: message.kind,
    ...(message.oncall === undefined ? {} : { oncall: message.oncall }),
    ...(message.to === undefined ? {} : { to: message.to }),
    alerts: message.alerts.map(
      (alert) =>
        `${alert.key} ${alert.status}${alert.firedAt ? `, fired ${clock(alert.firedAt).slice(11)}` : ''}`,
    ),
    ...(expected?.sms === undefined ? {} : { sms: message.sms }),
    ...(expected?.subject === undefined ? {} : { subject: message.subject }),
    ...(expected?.includes === undefined
      ? {}
      : { includes: expected.includes.filter((line) => message.text.includes(line)) }),
  };
}

describe('Scenarios: messages from recorded timelines', () => {
  it('finds the scenario files', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s', (file) => {
    const { scenario, config, entries, actions, changes, outages } = load(file);
    const { messages, muted, notifier } = replayMessages(
      config,
      entries,
      actions,
      changes,
      outages,
    );
    expect(
      messages.map((message, index) => shown(message, config.timezone, scenario.expect[index])),
      scenario.description,
    ).toEqual(scenario.expect);
    if (scenario.muted !== undefined) {
      const comments = new Map((notifier?.silences ?? []).map((s) => [s.id, s.comment]));
      expect(
        muted.map((item) => `${item.key} ${item.reason} ${comments.get(item.by) ?? item.by}`),
      ).toEqual(scenario.muted);
    }
  });
});
