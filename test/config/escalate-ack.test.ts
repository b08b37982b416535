import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';
import { configWarnings } from '../../shared/config/warnings';

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
    expect(config.ack).toEqual({ did: '+918000000099', timeoutMs: 1_800_000 });
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
      'telealert.yaml: ack.did: needs a live_calls rule: the live-calls poller sees the call, and it reads calls only for one',
    ]);
  });
});

describe('Function: parseConfig (ack.did and the live-calls query)', () => {
  const withQuery = (query: string, did = '+918000000099') => `${ringing('')}sources:
  live_calls: { query: ${query} }
ack: { did: "${did}" }
`;

  it('refuses an ack.did that a did_number filter hides, naming both paths', () => {
    expect(errorsOf(withQuery('{ did_number: "+918000000001" }'))).toEqual([
      'telealert.yaml: ack.did: calls to +918000000099 are never seen: sources.live_calls.query.did_number asks only for calls to +918000000001; drop that filter or acknowledge with telealert ack',
    ]);
  });

  it('refuses an ack.did hidden by an agent_number, extension or call_id filter, each named', () => {
    const errors = errorsOf(
      withQuery('{ agent_number: "+919800000005", extension: "101", call_id: "c1" }'),
    );
    expect(errors).toEqual([
      'telealert.yaml: ack.did: calls to +918000000099 are never seen: sources.live_calls.query.agent_number asks only for calls with agent_number +919800000005; drop that filter or acknowledge with telealert ack',
      'telealert.yaml: ack.did: calls to +918000000099 are never seen: sources.live_calls.query.extension asks only for calls with extension 101; drop that filter or acknowledge with telealert ack',
      'telealert.yaml: ack.did: calls to +918000000099 are never seen: sources.live_calls.query.call_id asks only for calls with call_id c1; drop that filter or acknowledge with telealert ack',
    ]);
  });

  it('accepts a did_number filter that is the ack number however written', () => {
    const config = parseConfig(withQuery('{ did_number: "08000000099" }'), 'telealert.yaml');
    expect(config.ack?.did).toBe('+918000000099');
  });
});

describe('Function: parseConfig (ack.timeout)', () => {
  it('holds an acknowledgement by call 30 minutes unless told otherwise', () => {
    const config = parseConfig(`${ringing('')}ack: { did: "+918000000099" }\n`, 'telealert.yaml');
    expect(config.ack).toEqual({ did: '+918000000099', timeoutMs: 1_800_000 });
    const set = parseConfig(
      `${ringing('')}ack: { did: "+918000000099", timeout: 10m }\n`,
      'telealert.yaml',
    );
    expect(set.ack?.timeoutMs).toBe(600_000);
  });

  it('refuses a timeout under a minute', () => {
    expect(errorsOf(`${ringing('')}ack: { did: "+918000000099", timeout: 30s }\n`)[0]).toMatch(
      /^telealert\.yaml: ack\.timeout: /,
    );
  });
});

describe('Function: configWarnings (escalation and active hours)', () => {
  const config = (managers: string) =>
    parseConfig(
      `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+919800000001"] }
  managers: ${managers}
  owners: { email: [owners@example.com], active: { from: "09:00", to: "18:00" } }
rules:
  - name: stuck-ringing
    source: live_calls
    where: { state: Ringing }
    notify: [oncall]
    escalate:
      - { after: 10m, notify: [managers, owners] }
      - { after: 1h, notify: [owners, oncall] }
`,
      'telealert.yaml',
    );

  it('warns when every channel of an escalation step keeps active hours', () => {
    const warnings = configWarnings(
      config('{ email: [managers@example.com], active: { from: "09:00", to: "18:00" } }'),
    );
    expect(warnings).toEqual([
      {
        path: 'rules[0].escalate[0].notify',
        message:
          'every channel of this step keeps active hours (managers, owners): outside them the escalation waits for their window; add a channel without active hours to page at any time',
      },
    ]);
  });

  it('says nothing when a step has a channel that is always active', () => {
    expect(configWarnings(config('{ email: [managers@example.com] }'))).toEqual([]);
  });
});
