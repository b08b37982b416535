import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigReadError } from '../../shared/config/errors';
import { loadConfigFile, MAX_RULES_FILE_BYTES, parseConfig } from '../../shared/config/load';

const MINIMAL = `
api: { baseUrl: https://api.example.com/, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+12025550100"], email: [oncall@example.com] }
rules:
  - name: too-many-ringing
    source: live_calls
    where: { state: Ringing }
    count: "> 5"
    groupBy: [did]
    notify: [oncall]
`;

/** The lines of the ConfigError thrown for `text`. */
function errorsOf(text: string): string[] {
  try {
    parseConfig(text, 'telealert.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

/** MINIMAL with the first rule's body extended by `lines` (each indented under the rule). */
function withRule(lines: string): string {
  return `${MINIMAL}${lines
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')}\n`;
}

describe('Function: loadConfigFile', () => {
  it('validates the shipped telealert.yaml', () => {
    const config = loadConfigFile(join(import.meta.dirname, '../../telealert.yaml'));
    expect(config.rules.map((rule) => rule.name)).toEqual([
      'too-many-ringing',
      'call-ringing-too-long',
      'payment-stuck-pending',
      'large-payment',
    ]);
    expect(config.sources.live_calls.samples).toBe(4);
    expect(config.channels.finance?.email).toContain('finance@example.com');
  });

  it('throws a ConfigReadError naming the file when it does not exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'telealert-config-'));
    expect(() => loadConfigFile(join(dir, 'missing.yaml'))).toThrow(ConfigReadError);
    expect(() => loadConfigFile(join(dir, 'missing.yaml'))).toThrow(/^missing\.yaml: cannot read/);
  });

  it('says the rules file is a directory when it is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'telealert-config-'));
    expect(() => loadConfigFile(dir)).toThrow(ConfigReadError);
    expect(() => loadConfigFile(dir)).toThrow(`${dir} is a directory, not a rules file`);
  });

  it('reads a JSON rules file, since JSON is YAML', () => {
    const dir = mkdtempSync(join(tmpdir(), 'telealert-config-'));
    const file = join(dir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({
        api: { baseUrl: 'https://api.example.com', tokenParameter: 'token' },
        channels: { ops: {} },
        rules: [],
      }),
    );
    expect(loadConfigFile(file).health.notify).toEqual(['ops']);
  });
});

describe('Function: parseConfig', () => {
  it('fills every default the contract names', () => {
    const config = parseConfig(MINIMAL, 'telealert.yaml');
    expect(config.timezone).toBe('Asia/Kolkata');
    expect(config.api).toEqual({
      baseUrl: 'https://api.example.com',
      tokenParameter: '/telealert/api-token',
      timeoutMs: 10_000,
    });
    expect(config.sources).toEqual({
      live_calls: { everyMs: 60_000, samples: 1, query: {} },
      payments: { everyMs: 300_000, lookbackMs: 86_400_000 },
    });
    expect(config.health).toEqual({ after: 3, notify: ['oncall'] });
    expect(config.rules[0]).toEqual({
      name: 'too-many-ringing',
      source: 'live_calls',
      where: { state: { kind: 'equals', values: ['Ringing'] } },
      count: { kind: 'compare', op: '>', value: '5' },
      groupBy: ['did'],
      forMs: 0,
      keepFiringMs: 0,
      resolved: true,
      severity: 'warning',
      notify: ['oncall'],
    });
  });

  it('returns a deep-frozen config', () => {
    const config = parseConfig(MINIMAL, 'telealert.yaml');
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rules[0]?.where.state)).toBe(true);
    expect(Object.isFrozen(config.channels.oncall?.sms)).toBe(true);
    expect(() => (config.rules as unknown[]).push(1)).toThrow(TypeError);
  });

  it('reads each condition form: equality, any-of, "OP VALUE", and a count as a number', () => {
    const config = parseConfig(
      MINIMAL.replace('count: "> 5"', 'count: 3').replace(
        'where: { state: Ringing }',
        'where: { state: [Ringing, Answered], direction: inbound, call_time: ">= 00:01:30", agent_name: "<> bot", id: 7 }',
      ),
      'telealert.yaml',
    );
    expect(config.rules[0]?.where).toEqual({
      state: { kind: 'equals', values: ['Ringing', 'Answered'] },
      direction: { kind: 'equals', values: ['inbound'] },
      call_time: { kind: 'compare', op: '>=', value: '00:01:30' },
      agent_name: { kind: 'compare', op: '<>', value: 'bot' },
      id: { kind: 'equals', values: ['7'] },
    });
    expect(config.rules[0]?.count).toEqual({ kind: 'equals', values: ['3'] });
  });

  it.each(['>', '<', '>=', '<=', '<>'])('accepts the operator %s on a money field', (op) => {
    const text = `${MINIMAL}  - name: large\n    source: payments\n    where: { amount_paid: "${op} 100000.10" }\n    notify: [oncall]\n`;
    expect(parseConfig(text, 'f.yaml').rules[1]?.where.amount_paid).toEqual({
      kind: 'compare',
      op,
      value: '100000.10',
    });
  });

  it('reports every issue at once, each with file and path', () => {
    const lines = errorsOf(`
timezone: Mars/Base
api: { baseUrl: http://api.example.com, tokenParameter: /t, timout: 5s }
sources: { live_calls: { every: 30s } }
channels: { oncall: { email: [oncall@example.com] } }
rules:
  - name: large
    source: payments
    where: { amount_paid: "=> 100000" }
    notify: [finance]
`);
    expect(lines).toEqual([
      'telealert.yaml: timezone: "Mars/Base" is not an IANA time zone (for example Asia/Kolkata or Europe/London)',
      'telealert.yaml: api.baseUrl: must use https (http is allowed only for localhost and 127.0.0.1)',
      'telealert.yaml: api.timout: unknown key; did you mean "timeout"?',
      "telealert.yaml: sources.live_calls.every: must be at least 1m (EventBridge's floor)",
      'telealert.yaml: rules[0].where.amount_paid: operator must be one of >, <, >=, <=, <>',
      'telealert.yaml: rules[0].notify[0]: no channel named "finance"',
    ]);
  });

  it('says a missing enumerated key is required, and which values it takes', () => {
    const lines = errorsOf(MINIMAL.replace('    source: live_calls\n', ''));
    expect(lines).toEqual([
      'telealert.yaml: rules[0].source: is required: one of live_calls, payments',
    ]);
  });

  it('reports the issues inside a section beside an unknown key of it or of its parent', () => {
    const lines = errorsOf(`
api: { baseUrl: https://api.example.com, tokenParameter: /t }
sources:
  other: {}
  live_calls: { every: 1m, samples: 20, query: { foo: 1 } }
  payments: { every: 5m, lookback: 1m, extra: 1 }
health: { after: 0, notify: [nobody] }
channels: { oncall: { email: [oncall@example.com] } }
rules: []
`);
    expect(lines).toEqual([
      'telealert.yaml: sources.other: unknown key',
      'telealert.yaml: sources.live_calls.query.foo: unknown key',
      'telealert.yaml: sources.payments.extra: unknown key',
      'telealert.yaml: sources.live_calls.samples: leaves less than 5s between samples',
      'telealert.yaml: sources.payments.lookback: must be at least every, or payments made between two runs are missed',
      'telealert.yaml: health.after: must be at least 1',
      'telealert.yaml: health.notify[0]: no channel named "nobody"',
    ]);
  });

  it('refuses a live calls number filter that is no phone number, rather than sending it', () => {
    const query = (q: string) =>
      MINIMAL.replace('channels:', `sources:\n  live_calls: { query: ${q} }\nchannels:`);
    expect(
      errorsOf(query('{ agent_number: "+91 abc", did_number: "x1", extension: "ext 7" }')),
    ).toEqual([
      'telealert.yaml: sources.live_calls.query.agent_number: "+91 abc" is not a phone number',
      'telealert.yaml: sources.live_calls.query.did_number: "x1" is not a phone number',
    ]);
    expect(
      parseConfig(query('{ agent_number: "+91 98765 00005", did_number: 8000000001 }'), 'f.yaml')
        .sources.live_calls.query,
    ).toEqual({ agent_number: '+91 98765 00005', did_number: '8000000001' });
  });

  it.each([['"=> 5"'], ['"== 3"'], ['"!= x"'], ['"=5"'], ['"><1"']])(
    'refuses the operator-like value %s with the list of operators',
    (value) => {
      const text = MINIMAL.replace(
        '{ state: Ringing }',
        `{ state: Ringing, agent_name: ${value} }`,
      );
      expect(errorsOf(text)).toEqual([
        'telealert.yaml: rules[0].where.agent_name: operator must be one of >, <, >=, <=, <>',
      ]);
    },
  );

  it.each([
    ['groupby: [did]', 'rules[0].groupby: unknown key; did you mean "groupBy"?'],
    ['keep_firing: 1m', 'rules[0].keep_firing: unknown key; did you mean "keepFiring"?'],
    ['severty: critical', 'rules[0].severty: unknown key; did you mean "severity"?'],
    ['colour: red', 'rules[0].colour: unknown key'],
  ])('hints at the key meant by a misspelled %s', (line, expected) => {
    const text = withRule(line).replace('    groupBy: [did]\n', '');
    expect(errorsOf(text)).toContain(`telealert.yaml: ${expected}`);
  });

  it('hints at field names in where and groupBy, and channel names in notify', () => {
    const text = MINIMAL.replace('{ state: Ringing }', '{ stat: Ringing }')
      .replace('[did]', '[didd]')
      .replace('notify: [oncall]', 'notify: [on-call]');
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: rules[0].where.stat: live_calls records have no field "stat"; did you mean "state"?',
      'telealert.yaml: rules[0].groupBy[0]: live_calls records have no field "didd"; did you mean "did"?',
      'telealert.yaml: rules[0].notify[0]: no channel named "on-call"; did you mean "oncall"?',
    ]);
  });

  it.each(['constructor', '__proto__', 'toString'])(
    'refuses an object member name (%s) as a field, and as a direction',
    (name) => {
      const asField = MINIMAL.replace('{ state: Ringing }', `{ ${name}: x }`).replace(
        '[did]',
        `[${name}]`,
      );
      expect(errorsOf(asField)).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`rules[0].where.${name}: live_calls records have no field`),
          expect.stringContaining(`rules[0].groupBy[0]: live_calls records have no field`),
        ]),
      );
      const asDirection = MINIMAL.replace('{ state: Ringing }', `{ direction: ${name} }`);
      expect(errorsOf(asDirection)).toEqual([
        `telealert.yaml: rules[0].where.direction: "${name}" is not 1, 2, inbound or outbound`,
      ]);
    },
  );

  it.each([
    [
      'amount_paid: ">= lots"',
      'where.amount_paid',
      '"lots" is not an amount (a decimal number such as 100000 or 1499.50)',
    ],
    ['age: "> soon"', 'where.age', '"soon" is not a duration (90s, 15m, 2h, HH:MM:SS or seconds)'],
    ['gateway: ">"', 'where.gateway', '">" has no value after >'],
    [
      'created_at: "> 2026-01-01"',
      'where.created_at',
      '> does not apply to created_at (time); compare age instead (e.g. age: "> 30m")',
    ],
    [
      'status: {a: 1}',
      'where.status',
      'must be a value, a list of values, or "OP VALUE" (e.g. "> 5")',
    ],
  ])('refuses the payments condition %s', (condition, path, message) => {
    const text = `${MINIMAL}  - name: p\n    source: payments\n    where: { ${condition} }\n    notify: [oncall]\n`;
    expect(errorsOf(text)).toEqual([`telealert.yaml: rules[1].${path}: ${message}`]);
  });

  it.each([
    ['source: "+918000000001"', 'live_calls', undefined],
    ['source: "> +91800"', 'live_calls', '> does not apply to source (phone); use <> or equality'],
    ['direction: sideways', 'live_calls', '"sideways" is not 1, 2, inbound or outbound'],
    ['did: "+91 abc"', 'live_calls', '"+91 abc" is not a phone number'],
    ['destination: ["+91 98123 00011", "98123-00012"]', 'live_calls', undefined],
    ['source: anonymous', 'live_calls', undefined],
  ])('reads live_calls condition %s by field kind', (condition, _source, message) => {
    const text = `${MINIMAL}  - name: c\n    source: live_calls\n    where: { ${condition} }\n    notify: [oncall]\n`;
    if (message === undefined) expect(() => parseConfig(text, 'telealert.yaml')).not.toThrow();
    else
      expect(errorsOf(text)).toEqual([
        `telealert.yaml: rules[1].where.${condition.split(':')[0]}: ${message}`,
      ]);
  });

  it('refuses groupBy without count, repeated rule names, and bad durations together', () => {
    const text = `${MINIMAL}  - name: too-many-ringing
    source: live_calls
    groupBy: [did]
    for: 5
    repeat: 10s
    keepFiring: soon
    notify: [oncall]
`;
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: rules[1].for: 5 has no unit: write 5s, 5m or 5h',
      'telealert.yaml: rules[1].keepFiring: "soon" is not a duration: write 90s, 15m, 2h, 1d or HH:MM:SS',
      'telealert.yaml: rules[1].repeat: must be at least 1m',
      'telealert.yaml: rules[1].groupBy: groupBy needs count: only aggregate rules group records',
      'telealert.yaml: rules[1].name: "too-many-ringing" is already the name of rules[0]',
    ]);
  });

  it('names an unknown count operator and lists the operators, rather than blaming the number', () => {
    for (const [written, op] of [
      ['~ 5', '~'],
      ['≥ 5', '≥'],
      ['=> 5', '=>'],
    ]) {
      expect(errorsOf(MINIMAL.replace('count: "> 5"', `count: "${written}"`))).toEqual([
        `telealert.yaml: rules[0].count: unknown operator "${op}": operator must be one of >, <, >=, <=, <>`,
      ]);
    }
    expect(errorsOf(MINIMAL.replace('count: "> 5"', 'count: "> five"'))).toEqual([
      'telealert.yaml: rules[0].count: "five" is not a whole number of records',
    ]);
  });

  it('names an unknown operator on a number, amount or duration field too, but never on text', () => {
    const payments = (where: string) =>
      `${MINIMAL}  - name: p\n    source: payments\n    where: { ${where} }\n    notify: [oncall]\n`;
    expect(errorsOf(payments('amount_paid: "~ 100"'))).toEqual([
      'telealert.yaml: rules[1].where.amount_paid: unknown operator "~": operator must be one of >, <, >=, <=, <>',
    ]);
    expect(errorsOf(payments('age: "≥ 5m"'))).toEqual([
      'telealert.yaml: rules[1].where.age: unknown operator "≥": operator must be one of >, <, >=, <=, <>',
    ]);
    expect(() => parseConfig(payments('amount_paid: "-5"'), 'f.yaml')).not.toThrow();
    expect(() => parseConfig(payments('status: "~ pending"'), 'f.yaml')).not.toThrow();
  });

  it('bounds a count threshold so it stays an exact number', () => {
    expect(errorsOf(MINIMAL.replace('count: "> 5"', 'count: "> 99999999999999999999"'))).toEqual([
      'telealert.yaml: rules[0].count: 99999999999999999999 is more records than any poll holds: at most 1000000000',
    ]);
    expect(() =>
      parseConfig(MINIMAL.replace('count: "> 5"', 'count: "> 1000000000"'), 'telealert.yaml'),
    ).not.toThrow();
  });

  it('refuses a grouped count that holds for an empty group, which no poll can show', () => {
    const text = `${MINIMAL}  - name: too-few-agents
    source: live_calls
    where: { state: Answered }
    count: "< 2"
    groupBy: [did]
    notify: [oncall]
`;
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: rules[1].count: < 2 holds for an empty group, which groupBy cannot see (a group exists only while it has records): use >, >= or a count above 0, or drop groupBy',
    ]);
    const ungrouped = `${text.slice(0, text.lastIndexOf('    groupBy: [did]\n'))}    notify: [oncall]\n`;
    expect(() => parseConfig(ungrouped, 'telealert.yaml')).not.toThrow();
  });

  it('validates summary placeholders against what the rule can fill', () => {
    const aggregate = withRule('summary: "{count} ringing on {dd} {{literal}}"');
    expect(errorsOf(aggregate)).toEqual([
      'telealert.yaml: rules[0].summary: unknown placeholder {dd}; did you mean "did"?',
    ]);
    const perRecord = `${MINIMAL}  - name: p\n    source: payments\n    notify: [oncall]\n    summary: "{id} {count}"\n`;
    expect(errorsOf(perRecord)[0]).toMatch(
      /^telealert\.yaml: rules\[1\]\.summary: unknown placeholder \{count\}; this rule can use rule, severity, id, amount_paid/,
    );
    expect(errorsOf(withRule('summary: "{count"'))).toEqual([
      'telealert.yaml: rules[0].summary: "{" at position 1 is not closed; write {{ for a brace',
    ]);
  });

  it('checks channels: names, E.164 numbers (quoted), email addresses', () => {
    const text = MINIMAL.replace(
      'oncall: { sms: ["+12025550100"], email: [oncall@example.com] }',
      'oncall: { sms: [+12025550100, "555"], email: [nobody] }\n  Ops_Team: {}',
    );
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: channels.oncall.sms[0]: quote the number ("+12025550100"): unquoted, YAML reads it as a number and drops the +',
      'telealert.yaml: channels.oncall.sms[1]: "555" has no country code, and is no number of India (+91) either: write "+", the country code and the number',
      'telealert.yaml: channels.oncall.email[0]: "nobody" is not an email address',
      'telealert.yaml: channels.Ops_Team: channel names are 1 to 64 of a-z, 0-9 and - (they name SNS topics)',
    ]);
  });

  it('reports every bad item of a list at its own path, counting from 0 like rules[0]', () => {
    const text = MINIMAL.replace(
      'oncall: { sms: ["+12025550100"], email: [oncall@example.com] }',
      'oncall: { sms: ["+12025550100", "12", "+12025550100", "x"], email: [a@example.com, b, c] }',
    ).replace(
      'where: { state: Ringing }',
      'where: { state: Ringing, direction: [1, sideways, 2, up] }',
    );
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: channels.oncall.sms[1]: "12" has no country code, and is no number of India (+91) either: write "+", the country code and the number',
      'telealert.yaml: channels.oncall.sms[2]: lists the number "+12025550100" twice (also [0])',
      'telealert.yaml: channels.oncall.sms[3]: "x" is not a phone number',
      'telealert.yaml: channels.oncall.email[1]: "b" is not an email address',
      'telealert.yaml: channels.oncall.email[2]: "c" is not an email address',
      'telealert.yaml: rules[0].where.direction[1]: "sideways" is not 1, 2, inbound or outbound',
      'telealert.yaml: rules[0].where.direction[3]: "up" is not 1, 2, inbound or outbound',
    ]);
  });

  it('says an empty text item is empty, not "at least 1"', () => {
    const text = MINIMAL.replace(
      'oncall: { sms: ["+12025550100"], email: [oncall@example.com] }',
      'oncall: { email: [oncall@example.com], group: { by: [rule, ""] } }',
    );
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: channels.oncall.group.by[1]: must not be empty',
    ]);
  });

  it('names a single value given where a list is expected by the key alone', () => {
    const text = MINIMAL.replace('sms: ["+12025550100"]', 'sms: "555"');
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: channels.oncall.sms: "555" has no country code, and is no number of India (+91) either: write "+", the country code and the number',
    ]);
  });

  it('allows http only for loopback hosts and strips the trailing slash', () => {
    const config = parseConfig(
      MINIMAL.replace('https://api.example.com/', 'http://127.0.0.1:8080/'),
      'f.yaml',
    );
    expect(config.api.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('bounds samples and lookback against every', () => {
    const text = `${MINIMAL}sources:
  live_calls: { every: 1m, samples: 20 }
  payments: { every: 10m, lookback: 5m }
`;
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: sources.live_calls.samples: leaves less than 5s between samples',
      'telealert.yaml: sources.payments.lookback: must be at least every, or payments made between two runs are missed',
    ]);
  });

  it('reports YAML syntax errors with line and column', () => {
    const lines = errorsOf('api:\n  baseUrl: [https://x\nrules: []\n');
    expect(lines[0]).toMatch(/^telealert\.yaml:\d+:\d+: YAML: /);
  });

  it('refuses a file of several YAML documents in words of its own', () => {
    expect(errorsOf(`${MINIMAL}---\nrules: []\n`)).toEqual([
      'telealert.yaml:12:1: YAML: the file holds several documents (a second ---): a rules file is one document',
    ]);
  });

  it('reports duplicate keys as a YAML error', () => {
    expect(errorsOf(`${MINIMAL}timezone: UTC\ntimezone: UTC\n`)[0]).toMatch(
      /^telealert\.yaml:13:1: YAML: Map keys must be unique/,
    );
  });

  it.each([
    ['', 'telealert.yaml: the file is empty; it needs at least api, channels and rules'],
    ['- 1', 'telealert.yaml: must be a mapping with api, channels and rules'],
    [
      'colour: red',
      [
        'telealert.yaml: colour: unknown key',
        'telealert.yaml: api: is required (baseUrl and tokenParameter)',
        'telealert.yaml: channels: is required: at least one channel to notify',
        'telealert.yaml: rules: is required (an empty list [] is allowed)',
      ].join('\n'),
    ],
  ])('refuses the document %j', (text, message) => {
    expect(() => parseConfig(text, 'telealert.yaml')).toThrow(message);
  });
});

describe('Function: parseConfig, the size of a rules file', () => {
  const rule = (index: number) =>
    `  - { name: rule-${index}, source: live_calls, where: { state: Ringing }, notify: [oncall] }\n`;
  const header =
    'api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }\nchannels:\n  oncall: { email: [oncall@example.com] }\nrules:\n';

  it('refuses a 5 MB file of 25,000 rules before reading it, saying how large it is and the limit', () => {
    let text = header;
    for (let index = 0; text.length < 5_000_000; index += 1) text += rule(index);
    expect(() => parseConfig(text, 'telealert.yaml')).toThrow(
      new ConfigError('telealert.yaml', [
        {
          path: '',
          message: `the rules file is ${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MiB, over the 1.0 MiB telealert reads: rules files are written by hand (the shipped one has 4 rules in 4 KiB); is this the right file, or one generated by mistake?`,
        },
      ]),
    );
  });

  it('reads a file of exactly the limit (here mostly comments)', () => {
    const body = `${header}${rule(0)}`;
    const padding = MAX_RULES_FILE_BYTES - Buffer.byteLength(body);
    const comment = `# ${'x'.repeat(78)}\n`;
    const text = `${comment.repeat(Math.floor(padding / comment.length))}${'#'.repeat(padding % comment.length)}\n`;
    const exact = `${text.slice(0, padding - 1)}\n${body}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_RULES_FILE_BYTES);
    expect(parseConfig(exact, 'telealert.yaml').rules).toHaveLength(1);
    expect(() => parseConfig(`#${exact}`, 'telealert.yaml')).toThrow(/over the 1.0 MiB/);
  });
});
