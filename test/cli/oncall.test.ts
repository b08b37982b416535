import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import { FileStateStore } from '../../shared/ports/file';
import { workDirs } from './fixtures';
import { memoryIo } from './io';

const RULES = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
people:
  asha: { sms: "+919800000001", email: asha@example.com }
  ravi: { sms: "+919800000002" }
rotations:
  primary: { members: [asha, ravi], shift: 1w, handoff: "mon 09:00", start: "2026-11-23" }
channels:
  oncall: { rotation: primary, email: [ops@example.com] }
rules: []
`;

/** Friday 2026-11-27 12:00 IST: Asha's first week. */
const T0 = Date.parse('2026-11-27T06:30:00Z');

describe('Command: oncall', () => {
  const tmp = workDirs();

  function setup() {
    const dir = tmp({ 'telealert.yaml': RULES });
    const state = join(dir.path, 'state.json');
    const io = (now = T0) => ({
      ...memoryIo({ cwd: dir.path, env: { USER: 'asha' } as Record<string, string> }),
      now: () => now,
    });
    return { state, io };
  }

  it('prints who is on call now and the next handoffs, in the config zone', async () => {
    const { state, io } = setup();
    const run = io();
    expect(await runCli(['oncall', '--state', state], run)).toBe(0);
    expect(run.out()).toBe(
      [
        'primary: asha (+919800000001, asha@example.com) on call until Mon 2026-11-30 09:00 IST',
        '  Mon 2026-11-30 09:00 IST  ravi',
        '  Mon 2026-12-07 09:00 IST  asha',
        '  Mon 2026-12-14 09:00 IST  ravi',
        '',
      ].join('\n'),
    );
  });

  it('answers for another time with --at, as JSON with the channels the rotation pages', async () => {
    const { state, io } = setup();
    const run = io();
    expect(
      await runCli(['oncall', '--state', state, '--at', '2026-12-01 10:00', '--json'], run),
    ).toBe(0);
    expect(JSON.parse(run.out())).toEqual({
      rotation: 'primary',
      at: '2026-12-01T04:30:00.000Z',
      oncall: 'ravi',
      since: '2026-11-30T03:30:00.000Z',
      until: '2026-12-07T03:30:00.000Z',
      override: null,
      channels: ['oncall'],
      next: [
        { at: '2026-12-07T03:30:00.000Z', oncall: 'asha', override: null },
        { at: '2026-12-14T03:30:00.000Z', oncall: 'ravi', override: null },
        { at: '2026-12-21T03:30:00.000Z', oncall: 'asha', override: null },
      ],
    });
  });

  it('adds an override that covers one night, lists it, shows it in oncall, and removes it', async () => {
    const { state, io } = setup();
    const added = io();
    expect(
      await runCli(
        [
          'oncall',
          'override',
          '--state',
          state,
          '--rotation',
          'primary',
          '--who',
          'ravi',
          '--from',
          '2026-11-27 20:00',
          '--until',
          '2026-11-28 09:00',
        ],
        added,
      ),
    ).toBe(0);
    const id = added.out().trim();
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(added.err()).toBe(
      `local state state.json (no file yet)\ntelealert: ravi on call for primary from Fri 2026-11-27 20:00 IST until Sat 2026-11-28 09:00 IST\n`,
    );
    const stored = await new FileStateStore(state).loadNotifier();
    expect(stored.state?.overrides).toEqual([
      expect.objectContaining({ id, who: 'ravi', createdBy: 'asha', createdAt: T0 }),
    ]);

    const listed = io();
    expect(await runCli(['oncall', 'override', 'list', '--state', state, '--json'], listed)).toBe(
      0,
    );
    expect(JSON.parse(listed.out())).toMatchObject({
      id,
      rotation: 'primary',
      who: 'ravi',
      from: '2026-11-27T14:30:00.000Z',
      until: '2026-11-28T03:30:00.000Z',
      state: 'pending',
      createdBy: 'asha',
    });

    const night = io(Date.parse('2026-11-27T16:00:00Z'));
    expect(await runCli(['oncall', '--state', state], night)).toBe(0);
    expect(night.out().split('\n').slice(0, 2)).toEqual([
      `primary: ravi (+919800000002) on call until Sat 2026-11-28 09:00 IST (override ${id})`,
      `  Sat 2026-11-28 09:00 IST  asha  (override ${id} ends)`,
    ]);

    const removed = io();
    expect(
      await runCli(['oncall', 'override', 'remove', id.slice(0, 6), '--state', state], removed),
    ).toBe(0);
    expect(removed.out()).toBe(`${id}\n`);
    expect((await new FileStateStore(state).loadNotifier()).state?.overrides).toBeUndefined();
  });

  it.each([
    [
      ['--rotation', 'primry', '--who', 'ravi', '--until', '2026-11-28 09:00'],
      '--rotation primry: no such rotation; did you mean "primary"?',
    ],
    [
      ['--rotation', 'primary', '--who', 'ravii', '--until', '2026-11-28 09:00'],
      '--who ravii: no such person in the rules file; did you mean "ravi"?',
    ],
    [['--rotation', 'primary', '--who', 'ravi'], 'oncall override needs --until TIME'],
    [
      ['--rotation', 'primary', '--who', 'ravi', '--until', '2026-11-26 09:00'],
      '--until is in the past: an override must end later',
    ],
    [['--who', 'ravi', '--until', '2026-11-28 09:00'], 'oncall override needs --rotation NAME'],
  ])('refuses an override %j with exit 2', async (args, message) => {
    const { state, io } = setup();
    const run = io();
    expect(await runCli(['oncall', 'override', '--state', state, ...args], run)).toBe(2);
    expect(run.err()).toContain(message);
  });

  it('refuses an override that ends before it starts, and removing one that does not exist', async () => {
    const { state, io } = setup();
    const backwards = io();
    expect(
      await runCli(
        ['oncall', 'override', '--state', state, '--rotation', 'primary', '--who', 'ravi'].concat([
          '--from',
          '2026-11-29 09:00',
          '--until',
          '2026-11-28 09:00',
        ]),
        backwards,
      ),
    ).toBe(2);
    expect(backwards.err()).toBe('telealert: an override must end after it starts\n');
    // Nothing was written: the refusal came before the state was opened.
    const missing = io();
    expect(await runCli(['oncall', 'override', 'remove', 'abc', '--state', state], missing)).toBe(
      2,
    );
    expect(missing.err()).toBe(
      `local state state.json (no file yet)\ntelealert: no override "abc" (telealert oncall override list shows them)\n`,
    );
  });
});
