import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';

const HEAD = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+919800000001"], email: [oncall@example.com] }
  managers: { email: [managers@example.com] }
`;

function errorsOf(text: string): string[] {
  try {
    parseConfig(text, 'telealert.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

const ringing = (extra: string) => `${HEAD}
rules:
  - name: stuck-ringing
    source: live_calls
    where: { state: Ringing }
    notify: [oncall]
${extra}`;

describe('Function: parseConfig (escalate, ack)', () => {
  it('reads escalation steps in order and the ack number', () => {
    const config = parseConfig(
      `${ringing(`    escalate:
      - { after: 10m, notify: [managers] }
      - { after: 1h, notify: [managers, oncall] }`)}
ack: { did: "+918000000099" }
`,
      'telealert.yaml',
    );
    expect(config.rules[0]?.escalate).toEqual([
      { afterMs: 600_000, notify: ['managers'] },
      { afterMs: 3_600_000, notify: ['managers', 'oncall'] },
    ]);
    expect(config.ack).toEqual({ did: '+918000000099' });
  });

  it('leaves escalate and ack out when the file has none', () => {
    const config = parseConfig(ringing(''), 'telealert.yaml');
    expect(config.rules[0]).not.toHaveProperty('escalate');
    expect(config).not.toHaveProperty('ack');
  });

  it('refuses an escalation to an unknown channel, steps out of order and a missing after', () => {
    expect(
      errorsOf(
        ringing(`    escalate:
      - { after: 30m, notify: [manager] }
      - { after: 10m, notify: [managers] }
      - { notify: [managers] }`),
      ),
    ).toEqual([
      'telealert.yaml: rules[0].escalate[2].after: is required (how long after firing, e.g. 10m)',
      'telealert.yaml: rules[0].escalate[0].notify[0]: no channel named "manager"; did you mean "managers"?',
      'telealert.yaml: rules[0].escalate[1].after: must be later than the step before (steps run in order)',
    ]);
  });

  it('refuses escalate on a rule that does not tell its resolutions', () => {
    expect(
      errorsOf(
        ringing(`    resolved: false
    escalate: [{ after: 10m, notify: [managers] }]`),
      ),
    ).toEqual([
      'telealert.yaml: rules[0].escalate: needs the rule to tell its resolutions (an escalation stops when the alert resolves): drop resolved: false',
    ]);
  });

  it('refuses an ack number that is no phone number, and one no live-calls poller would see', () => {
    expect(errorsOf(`${ringing('')}ack: { did: "call me" }\n`)).toEqual([
      'telealert.yaml: ack.did: "call me" is not a phone number',
    ]);
    expect(
      errorsOf(`${HEAD}
rules:
  - { name: failed, source: payments, where: { status: failed }, notify: [oncall] }
ack: { did: "+918000000099" }
`),
    ).toEqual([
      'telealert.yaml: ack.did: needs a live_calls rule: the live-calls poller sees the call, and it runs only for one',
    ]);
  });
});
