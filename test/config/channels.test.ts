import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';

function withChannel(body: string): string {
  return `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall:
${body
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
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

describe('Function: parseConfig (channels: group, smsPerHour, active)', () => {
  it('fills the notifier defaults: group by rule, no wait, a 5m interval, 20 SMS an hour, always active', () => {
    const config = parseConfig(withChannel('email: [a@example.com]'), 'telealert.yaml');
    expect(config.channels.oncall).toEqual({
      name: 'oncall',
      sms: [],
      email: ['a@example.com'],
      group: { by: ['rule'], waitMs: 0, intervalMs: 300_000 },
      smsPerHour: 20,
    });
  });

  it('reads group, smsPerHour and an active window with its days', () => {
    const config = parseConfig(
      withChannel(
        [
          'email: [a@example.com]',
          'group: { by: [severity, did], wait: 30s, interval: 10m }',
          'smsPerHour: 5',
          'active: { days: [mon, fri], from: "09:00", to: "24:00" }',
        ].join('\n'),
      ),
      'telealert.yaml',
    );
    expect(config.channels.oncall?.group).toEqual({
      by: ['severity', 'did'],
      waitMs: 30_000,
      intervalMs: 600_000,
    });
    expect(config.channels.oncall?.smsPerHour).toBe(5);
    expect(config.channels.oncall?.active).toEqual({
      days: ['mon', 'fri'],
      fromMinutes: 540,
      toMinutes: 1440,
    });
  });

  it('names the path of every bad notifier key at once', () => {
    const lines = errorsOf(
      withChannel(
        [
          'group: { by: [], wait: 2h, every: 5m }',
          'smsPerHour: 0',
          'active: { days: [monday], from: "9am", to: "25:00" }',
        ].join('\n'),
      ),
    );
    const paths = lines.map((line) => line.split(': ')[1]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'channels.oncall.group.by',
        'channels.oncall.group.wait',
        'channels.oncall.group.every',
        'channels.oncall.smsPerHour',
        'channels.oncall.active.days[0]',
        'channels.oncall.active.from',
        'channels.oncall.active.to',
      ]),
    );
  });

  it('refuses a window that starts when it ends', () => {
    expect(errorsOf(withChannel('active: { from: "09:00", to: "09:00" }'))).toEqual([
      'telealert.yaml: channels.oncall.active.to: must differ from from (leave active out for a channel that is always active)',
    ]);
  });
});

describe('Function: parseConfig (phone numbers)', () => {
  it('keeps each number as E.164, however it was spaced, and finds one number written twice', () => {
    const config = parseConfig(
      withChannel('sms: ["+91 98000 00001", "+1 (202) 555-0100"]'),
      'telealert.yaml',
    );
    expect(config.channels.oncall?.sms).toEqual(['+919800000001', '+12025550100']);
    expect(errorsOf(withChannel('sms: ["+919800000001", "+91 98000-00001"]'))).toEqual([
      'telealert.yaml: channels.oncall.sms[1]: lists the number "+919800000001" twice (also [0])',
    ]);
  });

  it('refuses an SMS number that is no number of the country it reads as, naming the country', () => {
    expect(errorsOf(withChannel('sms: ["+9800000001"]'))).toEqual([
      'telealert.yaml: channels.oncall.sms[0]: "+9800000001" is not a valid number: read as Iran (+98), it is no number there (in no range of its plan); for India (+91) write "+919800000001"',
    ]);
  });

  it('refuses an SMS number of a line that takes no SMS: a fixed line, a toll-free number', () => {
    expect(errorsOf(withChannel('sms: ["+911140000000", "+18005550199"]'))).toEqual([
      'telealert.yaml: channels.oncall.sms[0]: "+911140000000" is a fixed-line number of India (+91): it cannot take SMS; give a mobile number',
      'telealert.yaml: channels.oncall.sms[1]: "+18005550199" is a toll-free number of United States (+1): it cannot take SMS; give a mobile number',
    ]);
  });

  it('takes a fixed-line or toll-free number as ack.did (people call it), as E.164', () => {
    const text = `${withChannel('sms: ["+919800000001"]').replace('rules: []', '')}ack: { did: "+91 1800 180 1961" }
rules:
  - { name: ringing, source: live_calls, where: { state: Ringing }, notify: [oncall] }
`;
    expect(parseConfig(text, 'telealert.yaml').ack?.did).toBe('+9118001801961');
  });
});
