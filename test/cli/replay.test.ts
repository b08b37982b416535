import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import { BAD_RULES, REPO_ROOT, SHIPPED_RULES, workDirs } from './fixtures';
import { memoryIo, STACK_FRAME } from './io';

/**
 * The golden file. Regenerate it only deliberately, after reading the difference:
 * `node cli/bin.js replay --timeline examples/busy-evening.jsonl > examples/busy-evening.expected.jsonl`
 */
const EXPECTED = readFileSync(join(REPO_ROOT, 'examples/busy-evening.expected.jsonl'), 'utf8');

const line = (value: unknown) => JSON.stringify(value);
const RINGING_CALL = {
  id: 1,
  call_id: 'c-1',
  direction: '1',
  state: 'RINGING',
  did: '918000000001',
  created_at: '2026-11-21 09:58:00',
  call_time: '00:02:00',
};

/**
 * The messages golden file, regenerated the same way:
 * `node cli/bin.js replay --messages --timeline examples/busy-evening.jsonl > examples/busy-evening.messages.jsonl`
 */
const EXPECTED_MESSAGES = readFileSync(
  join(REPO_ROOT, 'examples/busy-evening.messages.jsonl'),
  'utf8',
);

describe('Command: replay', () => {
  const tmp = workDirs();

  it('prints the messages of the busy evening with --messages, exactly as their golden file', async () => {
    const io = memoryIo({ cwd: REPO_ROOT });
    const argv = ['replay', '--messages', '--timeline', 'examples/busy-evening.jsonl'];
    const code = await runCli(argv, io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toBe(EXPECTED_MESSAGES);
    const messages = io
      .outLines()
      .map(
        (text) =>
          JSON.parse(text) as { channel: string; kind: string; oncall?: string; alerts: unknown[] },
      );
    // The shipped rotation's first step tells asha (the day shift) she carries the pager; the
    // ringing spike's critical page goes alone and at once, to her; finance has no rotation.
    expect(messages[0]).toMatchObject({ channel: 'oncall', kind: 'handoff', oncall: 'asha' });
    expect(messages[1]).toMatchObject({ channel: 'oncall', kind: 'alerts', oncall: 'asha' });
    expect(messages[1]?.alerts).toHaveLength(1);
    expect(messages.some((m) => m.channel === 'finance' && m.oncall === undefined)).toBe(true);
    expect(Object.keys(JSON.parse(io.outLines()[1] ?? '{}'))).toEqual([
      'at',
      'channel',
      'kind',
      'oncall',
      'alerts',
      'sms',
      'subject',
      'text',
      'id',
    ]);
  });

  it('replays the busy-evening example on the shipped rules exactly as the golden file', async () => {
    const io = memoryIo({ cwd: REPO_ROOT });
    const code = await runCli(['replay', '--timeline', 'examples/busy-evening.jsonl'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toBe(EXPECTED);
  });

  it('has a golden file telling the whole busy evening, in order', () => {
    const story = EXPECTED.trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as { rule: string; status: string; key: string });
    expect(story.map(({ status, key }) => `${status} ${key}`)).toEqual([
      'firing too-many-ringing{did=+918000000001}',
      'firing large-payment{id=7004}',
      'resolved too-many-ringing{did=+918000000001}',
      expect.stringMatching(/^firing call-ringing-too-long\{call_id=.+\}$/),
      expect.stringMatching(/^resolved call-ringing-too-long\{call_id=.+\}$/),
      'firing source_unavailable{source=live_calls}',
      'resolved source_unavailable{source=live_calls}',
      'firing payment-stuck-pending{id=7003}',
      'resolved payment-stuck-pending{id=7003}',
    ]);
  });

  it('prints one notification object per line in the contract order and nothing else', async () => {
    const dir = tmp({
      'calls.jsonl': [
        line({ at: '2026-11-21T10:00:00+05:30', source: 'live_calls', records: [RINGING_CALL] }),
        line({ at: '2026-11-21T10:00:15+05:30', source: 'live_calls', records: [] }),
      ].join('\n'),
    });
    const io = memoryIo({ cwd: dir.path });
    const code = await runCli(
      ['replay', '--config', SHIPPED_RULES, '--timeline', 'calls.jsonl'],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).toBe('');
    const notifications = io.outLines().map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(notifications.map((n) => n.status)).toEqual(['firing', 'resolved']);
    expect(Object.keys(notifications[0] ?? {}).slice(0, 10)).toEqual([
      'at',
      'rule',
      'status',
      'severity',
      'channels',
      'key',
      'labels',
      'sms',
      'subject',
      'text',
    ]);
    expect(notifications[0]).toMatchObject({
      at: '2026-11-21T04:30:00.000Z',
      rule: 'call-ringing-too-long',
      channels: ['oncall'],
      labels: { call_id: 'c-1' },
    });
  });

  it('prints nothing at all for a timeline where nothing happens', async () => {
    const dir = tmp({
      'quiet.jsonl': `${line({ at: '2026-11-21T10:00:00+05:30', source: 'payments', records: [] })}\n`,
    });
    const io = memoryIo({ cwd: dir.path });
    expect(
      await runCli(['replay', '--config', SHIPPED_RULES, '--timeline', 'quiet.jsonl'], io),
    ).toBe(0);
    expect(io.out()).toBe('');
  });

  it('exits 2 with file:line and the reason of every bad line, printing no notification', async () => {
    const dir = tmp({
      'bad.jsonl': [
        line({ at: '2026-11-21T10:00:00+05:30', source: 'live_calls', records: [RINGING_CALL] }),
        '{"at": "2026-11-21T10:00:15+05:30",',
        line({ at: '2026-11-21T10:00:30+05:30', source: 'calls', records: [] }),
        line({ at: 'teatime', source: 'payments', records: [] }),
      ].join('\n'),
    });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['replay', '--config', SHIPPED_RULES, '--timeline', 'bad.jsonl'], io)).toBe(
      2,
    );
    expect(io.out()).toBe('');
    const lines = io.err().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^bad\.jsonl:2: not JSON/);
    expect(lines[1]).toMatch(/^bad\.jsonl:3: source: /);
    expect(lines[2]).toMatch(/^bad\.jsonl:4: at: "teatime"/);
    expect(io.err()).not.toMatch(STACK_FRAME);
  });

  it('exits 2 with every rules file error before reading the timeline', async () => {
    const dir = tmp({ 'bad.yaml': BAD_RULES });
    const io = memoryIo({ cwd: dir.path });
    expect(
      await runCli(['replay', '--config', 'bad.yaml', '--timeline', 'missing.jsonl'], io),
    ).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^bad\.yaml: timezone: /);
    expect(io.err().trimEnd().split('\n')).toHaveLength(8);
  });

  it('exits 2 with a clear message when the timeline file is missing', async () => {
    const dir = tmp();
    const io = memoryIo({ cwd: dir.path });
    expect(
      await runCli(['replay', '--config', SHIPPED_RULES, '--timeline', 'gone.jsonl'], io),
    ).toBe(2);
    expect(io.err()).toBe('telealert: gone.jsonl: no such file (the timeline)\n');
  });
});
