import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import { workDirs } from './fixtures';
import { memoryIo } from './io';

const RULES = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { email: [oncall@example.com] }
rules:
  - name: agent-ringing
    source: live_calls
    where: { state: Ringing, extension: "105" }
    count: "> 1"
    groupBy: [agent_number]
    notify: [oncall]
    summary: "{count} ringing for agent {agent_number}"
  - name: sales-queue
    source: live_calls
    where: { queue_name: Sales }
    notify: [oncall]
    summary: "call in {queue_name} on extension {extension}"
`;

const call = (callId: string, fields: Record<string, unknown>) => ({
  id: callId.length,
  call_id: callId,
  direction: 1,
  state: 'Ringing',
  did: '+918000000001',
  created_at: '2026-11-21 09:59:00',
  call_time: '00:01:00',
  ...fields,
});

const TIMELINE = `${JSON.stringify({
  at: '2026-11-21T10:00:00+05:30',
  source: 'live_calls',
  records: [
    call('c-1', { agent_number: '09876500005', extension: 105 }),
    call('c-2', { agent_number: '+919876500005', extension: '105' }),
    call('c-3', { agent_number: '9876500001', extension: '101', queue_name: 'SALES' }),
  ],
})}\n`;

describe('Fields beyond the seed document', () => {
  const tmp = workDirs();

  it('validates rules on documented newer fields, and on undocumented ones with a warning on stderr', async () => {
    const dir = tmp({ 'rules.yaml': RULES });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'rules.yaml'], io)).toBe(0);
    expect(io.out()).toBe('rules.yaml: ok (2 rules, 1 channel, timezone Asia/Kolkata)\n');
    expect(io.err().trimEnd().split('\n')).toEqual([
      'rules.yaml: rules[1].where.queue_name: warning: no document names the live_calls field "queue_name": it is read as text, and a record without it matches nothing',
      'rules.yaml: rules[1].summary: warning: no document names the live_calls field "queue_name": it is read as text, and a record without it matches nothing',
    ]);
  });

  it('matches, groups by and shows extension, agent_number and an undocumented field in replay', async () => {
    const dir = tmp({ 'rules.yaml': RULES, 'calls.jsonl': TIMELINE });
    const io = memoryIo({ cwd: dir.path });
    expect(
      await runCli(['replay', '--config', 'rules.yaml', '--timeline', 'calls.jsonl'], io),
    ).toBe(0);
    const sent = io.outLines().map(
      (text) =>
        JSON.parse(text) as {
          rule: string;
          key: string;
          value?: number;
          subject: string;
          text: string;
        },
    );
    expect(sent.map(({ rule, key }) => `${rule} ${key}`)).toEqual([
      'agent-ringing agent-ringing{agent_number=+919876500005}',
      'sales-queue sales-queue{call_id=c-3}',
    ]);
    expect(sent[0]?.value).toBe(2);
    expect(sent[0]?.subject).toContain('2 ringing for agent +919876500005');
    expect(sent[1]?.subject).toContain('call in SALES on extension 101');
    expect(sent[1]?.text).toMatch(/queue_name: +SALES/);
    expect(sent[1]?.text).toMatch(/agent_number: +\+919876500001/);
  });

  it('refuses payment_gateway, which the documents name as gateway, saying to write gateway', async () => {
    const dir = tmp({
      'rules.yaml': `${RULES}  - { name: p, source: payments, where: { payment_gateway: razorpay }, notify: [oncall], summary: "{payment_gateway}" }\n`,
    });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'rules.yaml'], io)).toBe(2);
    expect(io.err()).toContain(
      "rules.yaml: rules[2].where.payment_gateway: the API's payment_gateway is read as gateway (the documents name it both ways): write gateway",
    );
    expect(io.err()).toContain(
      'rules.yaml: rules[2].summary: unknown placeholder {payment_gateway}; write {gateway}',
    );
  });

  it('still refuses a field name that is a typo of a documented one', async () => {
    const dir = tmp({ 'rules.yaml': RULES.replace('extension: "105"', 'extensoin: "105"') });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'rules.yaml'], io)).toBe(2);
    expect(io.err()).toContain(
      'rules.yaml: rules[0].where.extensoin: live_calls records have no field "extensoin"; did you mean "extension"?',
    );
  });
});
