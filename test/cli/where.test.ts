import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actor } from '../../cli/lib/people';
import { placeOf } from '../../cli/lib/where';
import { runCli } from '../../cli/main';
import { workDirs } from './fixtures';
import { memoryIo } from './io';

const RULES = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { email: [oncall@example.com] }
rules:
  - name: ringing
    source: live_calls
    where: { state: Ringing }
    repeat: 5m
    notify: [oncall]
`;

const SILENCE = ['silence', 'add', '--match', 'rule=ringing', '--for', '1h', '--comment', 'x'];

describe('Function: placeOf', () => {
  const tmp = workDirs();

  it('takes --stack, then --state, then TELEALERT_STACK, then cdk.json, then the local state poll left', () => {
    const dir = tmp({ 'cdk.json': JSON.stringify({ context: { stackName: 'FromCdk' } }) });
    const io = (env: Record<string, string> = {}) => memoryIo({ cwd: dir.path, env });
    expect(placeOf({ stack: 'Named', state: undefined }, io(), 'alerts')).toEqual({
      kind: 'stack',
      stack: 'Named',
      namedBy: '--stack',
    });
    expect(placeOf({ state: 'mine.json' }, io({ TELEALERT_STACK: 'FromEnv' }), 'alerts')).toEqual({
      kind: 'local',
      path: join(dir.path, 'mine.json'),
      namedBy: '--state',
    });
    expect(placeOf({}, io({ TELEALERT_STACK: 'FromEnv' }), 'alerts')).toEqual({
      kind: 'stack',
      stack: 'FromEnv',
      namedBy: 'TELEALERT_STACK',
    });
    expect(placeOf({}, io(), 'alerts')).toEqual({
      kind: 'stack',
      stack: 'FromCdk',
      namedBy: 'cdk.json',
    });
    const bare = tmp();
    mkdirSync(join(bare.path, '.telealert'));
    writeFileSync(join(bare.path, '.telealert', 'state.json'), '{}');
    expect(placeOf({}, memoryIo({ cwd: bare.path }), 'alerts')).toEqual({
      kind: 'local',
      path: join(bare.path, '.telealert', 'state.json'),
      namedBy: 'default',
    });
  });

  it('refuses --stack with --state', () => {
    expect(() => placeOf({ stack: 'S', state: 'f' }, memoryIo(), 'ack')).toThrow(
      'give --stack or --state, not both',
    );
  });
});

describe('Commands: where silence, ack and alerts act', () => {
  const tmp = workDirs();

  it('refuses to start a local state by accident: no stack named and no local state, it shows both forms and writes nothing', async () => {
    const dir = tmp({ 'telealert.yaml': RULES });
    for (const [argv, command] of [
      [SILENCE, 'silence add'],
      [['silence', 'list'], 'silence list'],
      [['ack', '--rule', 'ringing'], 'ack'],
      [['alerts'], 'alerts'],
    ] as const) {
      const io = memoryIo({ cwd: dir.path, env: { USER: 'asha' } });
      expect(await runCli([...argv], io), command).toBe(2);
      expect(io.err()).toBe(
        [
          `telealert: no local state here (.telealert/state.json) and no stack named, so ${command} has nothing to act on.`,
          `  the deployed stack:  telealert ${command} ... --stack Telealert   (or export TELEALERT_STACK=Telealert)`,
          `  a local state file:  telealert ${command} ... --state .telealert/state.json`,
          '',
        ].join('\n'),
      );
      expect(io.out()).toBe('');
    }
    expect(existsSync(join(dir.path, '.telealert'))).toBe(false);
  });

  it('says first where it acted: the local state poll left, found without --state', async () => {
    const dir = tmp({ 'telealert.yaml': RULES });
    const explicit = memoryIo({ cwd: dir.path, env: { USER: 'asha' } });
    // --state names a file that does not exist yet: it means local state, and creates it.
    expect(await runCli([...SILENCE, '--state', '.telealert/state.json'], explicit)).toBe(0);
    expect(explicit.err().split('\n')[0]).toBe('local state .telealert/state.json (no file yet)');
    expect(existsSync(join(dir.path, '.telealert', 'state.json'))).toBe(true);

    for (const argv of [['alerts'], ['silence', 'list'], SILENCE]) {
      const io = memoryIo({ cwd: dir.path, env: { USER: 'asha' } });
      expect(await runCli([...argv], io), argv.join(' ')).toBe(0);
      expect(io.err().split('\n')[0]).toBe('local state .telealert/state.json');
    }
  });

  it('names a state file outside the working directory by its absolute path', async () => {
    const dir = tmp({ 'telealert.yaml': RULES });
    const elsewhere = tmp();
    const state = join(elsewhere.path, 'state.json');
    const io = memoryIo({ cwd: dir.path, env: { USER: 'asha' } });
    expect(await runCli(['alerts', '--state', state], io)).toBe(0);
    expect(io.err().split('\n')[0]).toBe(`local state ${state} (no file yet)`);
  });
});

describe('Function: actor (--by)', () => {
  it('takes --by, then the operating system user, then USER', () => {
    const io = (userName: string | undefined, env: Record<string, string> = {}) => ({
      ...memoryIo({ env }),
      userName: () => userName,
    });
    expect(actor({ by: 'ravi' }, io('os-user', { USER: 'env-user' }))).toBe('ravi');
    expect(actor({}, io('os-user', { USER: 'env-user' }))).toBe('os-user');
    expect(actor({}, io(undefined, { USER: 'env-user' }))).toBe('env-user');
    expect(() => actor({}, io(undefined))).toThrow(/say who you are with --by NAME/);
  });
});
