import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import { parseConfig } from '../../shared/config/load';
import { evaluate } from '../../shared/engine/evaluate';
import { decide } from '../../shared/notifier/decide';
import { FileStateStore } from '../../shared/ports/file';
import { readBatch } from '../../shared/records/parse';
import { workDirs } from './fixtures';
import { memoryIo, STACK_FRAME } from './io';

const RULES = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+919800000001"], email: [oncall@example.com] }
  managers: { email: [managers@example.com] }
rules:
  - name: stuck-ringing
    source: live_calls
    where: { state: Ringing }
    repeat: 5m
    notify: [oncall]
    escalate: [{ after: 10m, notify: [managers] }]
  - name: ringing-spike
    source: live_calls
    where: { state: Ringing }
    count: "> 1"
    groupBy: [did]
    notify: [oncall]
  - name: long-call
    source: live_calls
    where: { call_time: "> 01:00:00" }
    for: 5m
    notify: [oncall]
`;

/** 2026-11-21 10:00:00 IST. */
const T0 = Date.parse('2026-11-21T04:30:00Z');
const MINUTE = 60_000;

/** A state file in which c1 rings (firing since T0) and c2 is a long call still pending. */
async function seeded(path: string) {
  const config = parseConfig(RULES, 'telealert.yaml');
  const store = new FileStateStore(path, { now: () => T0 });
  const rows = [
    { call_id: 'c1', state: 'Ringing', did: '+918000000001' },
    { call_id: 'c2', state: 'Answered', did: '+918000000002', call_time: '01:30:00' },
  ];
  const batch = readBatch('live_calls', rows, config.timezone);
  const poll = { ok: true as const, records: batch.records, skipped: 0 };
  const result = evaluate(config, 'live_calls', poll, T0);
  await store.commit('live_calls', 0, result.state, []);
  const decision = decide(config, undefined, result.notifications, T0);
  await store.commitNotifier(0, { state: decision.state, consumed: {}, owed: [] });
  return { config, store, poll, result };
}

describe('Commands: silence, ack, alerts (local state)', () => {
  const tmp = workDirs();

  function setup() {
    const dir = tmp({ 'telealert.yaml': RULES });
    const state = join(dir.path, 'state.json');
    const io = () => memoryIo({ cwd: dir.path, env: { USER: 'asha' } as Record<string, string> });
    const at = (minutes: number) => ({ ...io(), now: () => T0 + minutes * MINUTE });
    return { dir, state, io, at };
  }

  it('lists firing and pending alerts with since-when, then who acknowledged and which silence holds them', async () => {
    const { state, at } = setup();
    await seeded(state);
    const before = at(2);
    expect(await runCli(['alerts', '--state', state, '--json'], before)).toBe(0);
    expect(before.outLines().map((line) => JSON.parse(line))).toEqual([
      {
        key: 'stuck-ringing{call_id=c1}',
        rule: 'stuck-ringing',
        source: 'live_calls',
        severity: 'warning',
        state: 'firing',
        since: '2026-11-21T04:30:00.000Z',
      },
      {
        key: 'long-call{call_id=c2}',
        rule: 'long-call',
        source: 'live_calls',
        severity: 'warning',
        state: 'pending',
        since: '2026-11-21T04:30:00.000Z',
      },
    ]);

    const ack = at(3);
    expect(
      await runCli(['ack', 'stuck-ringing{call_id=c1}', '--state', state, '--by', 'ravi'], ack),
    ).toBe(0);
    expect(ack.out()).toBe('stuck-ringing{call_id=c1}\n');
    const add = at(4);
    expect(
      await runCli(
        [
          'silence',
          'add',
          '--match',
          'rule=long-call',
          '--for',
          '2h',
          '--comment',
          'load test',
          '--state',
          state,
        ],
        add,
      ),
    ).toBe(0);
    const id = add.out().trim();
    expect(id).toMatch(/^[0-9a-f]{12}$/);

    const after = at(5);
    expect(await runCli(['alerts', '--state', state], after)).toBe(0);
    expect(after.out()).toBe(
      [
        'ALERT                      STATE    SEVERITY  SINCE                    ACKNOWLEDGED  SILENCED',
        'stuck-ringing{call_id=c1}  firing   warning   2026-11-21 10:00:00 IST  ravi          -',
        `long-call{call_id=c2}      pending  warning   2026-11-21 10:00:00 IST  -             ${id}`,
        '',
      ].join('\n'),
    );
  });

  it('shows until when an acknowledgement by call holds, and that it lapsed', async () => {
    const { state, at } = setup();
    const { store } = await seeded(state);
    const loaded = await store.loadNotifier();
    const key = 'stuck-ringing{call_id=c1}';
    const notifier = loaded.state as NonNullable<typeof loaded.state>;
    const tracked = notifier.alerts?.[key];
    if (tracked === undefined) throw new Error(`${key} is not followed`);
    const ack = {
      by: '+919800000001',
      at: T0 + MINUTE,
      via: 'call' as const,
      until: T0 + 31 * MINUTE,
    };
    await store.commitNotifier(loaded.revision, {
      state: { ...notifier, alerts: { ...notifier.alerts, [key]: { ...tracked, ack } } },
      consumed: {},
      owed: [],
    });

    const holding = at(2);
    expect(await runCli(['alerts', '--state', state, '--rule', 'stuck-ringing'], holding)).toBe(0);
    expect(holding.outLines()[1]).toContain('+919800000001 until 2026-11-21 10:31:00 IST');
    const json = at(2);
    expect(await runCli(['alerts', '--state', state, '--json'], json)).toBe(0);
    expect(JSON.parse(json.outLines()[0] ?? '{}')).toMatchObject({
      key,
      acknowledgedBy: '+919800000001',
      acknowledgedUntil: '2026-11-21T05:01:00.000Z',
    });

    const lapsed = at(31);
    expect(await runCli(['alerts', '--state', state, '--rule', 'stuck-ringing'], lapsed)).toBe(0);
    expect(lapsed.outLines()[1]).toContain('+919800000001 (lapsed)');
    const lapsedJson = at(31);
    expect(await runCli(['alerts', '--state', state, '--json'], lapsedJson)).toBe(0);
    expect(JSON.parse(lapsedJson.outLines()[0] ?? '{}')).toMatchObject({
      key,
      acknowledgedUntil: '2026-11-21T05:01:00.000Z',
      acknowledgementLapsed: true,
    });
  });

  it('adds, lists and expires a silence; the notifier then records matching events instead of sending them', async () => {
    const { state, at } = setup();
    const { config, store } = await seeded(state);
    const add = at(1);
    const argv = ['silence', 'add', '--match', 'rule=ringing-spike', '--match', 'did=08000000001'];
    expect(
      await runCli(
        [...argv, '--until', '2026-11-21 12:00', '--comment', 'maintenance', '--state', state],
        add,
      ),
    ).toBe(0);
    const id = add.out().trim();
    expect(add.err()).toBe(
      'local state state.json\ntelealert: silenced did=08000000001, rule=ringing-spike until 2026-11-21 12:00:00 IST\n',
    );

    const list = at(2);
    expect(await runCli(['silence', 'list', '--json', '--state', state], list)).toBe(0);
    expect(JSON.parse(list.out())).toEqual({
      id,
      matchers: { did: '08000000001', rule: 'ringing-spike' },
      startsAt: '2026-11-21T04:31:00.000Z',
      endsAt: '2026-11-21T06:30:00.000Z',
      state: 'active',
      createdBy: 'asha',
      comment: 'maintenance',
      silenced: 0,
    });

    // A poll at 10:03 sees c3 ringing too: the spike on the silenced number (its label, the
    // number written another way) is recorded, not sent; c3's own alert goes as usual.
    const rows = [
      { call_id: 'c1', state: 'Ringing', did: '+918000000001' },
      { call_id: 'c3', state: 'Ringing', did: '+918000000001' },
    ];
    const batch = readBatch('live_calls', rows, config.timezone);
    const stored = await store.loadNotifier();
    const previous = (await store.load('live_calls')).state;
    const events = evaluate(
      config,
      'live_calls',
      { ok: true, records: batch.records, skipped: 0 },
      T0 + 3 * MINUTE,
      previous,
    ).notifications;
    const decision = decide(config, stored.state, events, T0 + 3 * MINUTE);
    // c3 waits for its group's interval (stuck-ringing told c1 at 10:00), the spike for nothing.
    expect(
      decision.state.channels.oncall?.groups['["stuck-ringing"]']?.held.map((e) => e.key),
    ).toEqual(['stuck-ringing{call_id=c3}']);
    expect(decision.muted.map((m) => [m.key, m.reason, m.by])).toEqual([
      ['ringing-spike{did=+918000000001}', 'silenced', id],
    ]);

    const expire = at(3);
    expect(await runCli(['silence', 'expire', id.slice(0, 6), '--state', state], expire)).toBe(0);
    expect(expire.err()).toBe(
      `local state state.json\ntelealert: expired silence ${id} (did=08000000001, rule=ringing-spike)\n`,
    );
    const again = at(4);
    expect(await runCli(['silence', 'expire', id, '--state', state], again)).toBe(2);
    expect(again.err()).toBe(
      `local state state.json\ntelealert: silence ${id} already ended at 2026-11-21 10:03:00 IST: nothing to expire (telealert silence list shows the active ones)\n`,
    );
    const ended = at(4);
    expect(await runCli(['silence', 'list', '--state', state], ended)).toBe(0);
    expect(ended.out()).toContain(`${id}  did=08000000001, rule=ringing-spike  expired`);
  });

  it('refuses a silence with no matcher, an unknown rule, no duration and no comment, saying what to write', async () => {
    const { state, at } = setup();
    const cases: [string[], string][] = [
      [['--for', '1h', '--comment', 'x'], 'a silence needs at least one --match NAME=VALUE'],
      [
        ['--match', 'rule=stuck-ringin', '--for', '1h', '--comment', 'x'],
        '--match rule=stuck-ringin: no such rule; did you mean "stuck-ringing"?',
      ],
      [['--match', 'rule', '--for', '1h', '--comment', 'x'], '--match "rule": write NAME=VALUE'],
      [
        ['--match', 'labels.rule=stuck-ringin', '--for', '1h', '--comment', 'x'],
        '--match labels.rule=stuck-ringin: no such rule; did you mean "stuck-ringing"?',
      ],
      [
        ['--match', 'labels.=x', '--for', '1h', '--comment', 'x'],
        '--match "labels.=x": write labels.NAME=VALUE',
      ],
      [
        ['--match', 'rule=long-call', '--comment', 'x'],
        'say how long: --for DURATION (2h) or --until TIME',
      ],
      [
        ['--match', 'rule=long-call', '--for', 'soon', '--comment', 'x'],
        '--for "soon": not a duration',
      ],
      [
        ['--match', 'rule=long-call', '--until', '2020-01-01 00:00', '--comment', 'x'],
        '--until is in the past',
      ],
      [['--match', 'rule=long-call', '--for', '1h'], 'say why with --comment TEXT'],
    ];
    for (const [extra, message] of cases) {
      const io = at(1);
      expect(await runCli(['silence', 'add', ...extra, '--state', state], io), message).toBe(2);
      expect(io.err()).toContain(message);
      expect(io.err()).not.toMatch(STACK_FRAME);
    }
  });

  it('refuses to acknowledge what is not firing, and to expire a silence that does not exist', async () => {
    const { state, at } = setup();
    await seeded(state);
    const ack = at(1);
    expect(await runCli(['ack', 'stuck-ringing{call_id=c9}', '--state', state], ack)).toBe(2);
    expect(ack.err()).toContain('nothing to acknowledge for alert stuck-ringing{call_id=c9}');
    const both = at(1);
    expect(await runCli(['ack', 'k', '--rule', 'stuck-ringing', '--state', state], both)).toBe(2);
    expect(both.err()).toContain('ack needs an alert KEY or --rule NAME, one of them');
    const expire = at(1);
    expect(await runCli(['silence', 'expire', 'abc', '--state', state], expire)).toBe(2);
    expect(expire.err()).toContain('no silence "abc"');
    const unknown = at(1);
    expect(await runCli(['silence', 'mute', '--state', state], unknown)).toBe(2);
    expect(unknown.err()).toContain('unknown silence action "mute": add, list or expire');
  });

  it('refuses to acknowledge a rule with neither repeat nor escalate, and a rule that does not exist, writing nothing', async () => {
    const { state, at } = setup();
    const { store } = await seeded(state);
    const before = await store.loadNotifier();
    const cases: [string[], string][] = [
      [
        ['--rule', 'long-call'],
        'telealert: --rule long-call: nothing to acknowledge: rule long-call neither repeats nor escalates, and acknowledging stops only those; silence it instead (telealert silence add --match rule=long-call --for 1h --comment ...)\n',
      ],
      [
        ['long-call{call_id=c2}'],
        'telealert: alert long-call{call_id=c2}: nothing to acknowledge: rule long-call neither repeats nor escalates, and acknowledging stops only those; silence it instead (telealert silence add --match rule=long-call --for 1h --comment ...)\n',
      ],
      [
        ['--rule', 'stuck-ringin'],
        'telealert: --rule stuck-ringin: no such rule in the rules file; did you mean "stuck-ringing"?\n',
      ],
      [
        ['--rule', 'nosuchrule'],
        'telealert: --rule nosuchrule: no such rule in the rules file; the rules are stuck-ringing, ringing-spike, long-call\n',
      ],
    ];
    for (const [argv, message] of cases) {
      const io = at(1);
      expect(await runCli(['ack', ...argv, '--state', state], io), argv.join(' ')).toBe(2);
      expect(io.err()).toBe(message);
    }
    expect((await store.loadNotifier()).revision).toBe(before.revision);
  });

  it('acknowledges every firing alert of a rule: its next repeat and its escalation are not sent', async () => {
    const { state, at } = setup();
    const { config, store } = await seeded(state);
    const ack = at(2);
    expect(await runCli(['ack', '--rule', 'stuck-ringing', '--state', state], ack)).toBe(0);
    expect(ack.err()).toBe('local state state.json\ntelealert: acknowledged 1 alert as asha\n');
    const stored = await store.loadNotifier();
    const tick = decide(config, stored.state, [], T0 + 10 * MINUTE);
    expect(tick.messages).toEqual([]);
    expect(tick.nextDueAtMs).toBeUndefined();
  });
});
