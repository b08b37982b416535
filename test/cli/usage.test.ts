import { describe, expect, it } from 'vitest';
import { runCli, USAGE } from '../../cli/main';
import { memoryIo } from './io';

const HINT = 'Run "telealert --help" for usage.\n';

describe('Function: runCli (usage)', () => {
  it('prints the usage on stdout and exits 0 for --help, -h and help', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const io = memoryIo();
      expect(await runCli(argv, io)).toBe(0);
      expect(io.out()).toBe(USAGE);
    }
  });

  it.each([
    [['frob'], 'telealert: unknown command "frob"\n'],
    [[], 'telealert: a command is required\n'],
    [['validate', '--frob'], 'telealert: unknown option --frob\n'],
    [['validate', '-x'], 'telealert: unknown option -x\n'],
    [['validate', 'extra'], 'telealert: unexpected argument "extra"\n'],
    [['replay'], 'telealert: replay needs --timeline FILE\n'],
    [['validate', '--once=yes'], "telealert: Option '--once' does not take an argument\n"],
  ])('exits 2 with a usage hint for %j', async (argv, message) => {
    const io = memoryIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.err()).toBe(`${message}${HINT}`);
    expect(io.out()).toBe('');
  });

  it('exits 2 naming the option when an option has no value', async () => {
    const io = memoryIo();
    expect(await runCli(['validate', '--config'], io)).toBe(2);
    expect(io.err()).toMatch(/--config/);
    expect(io.err()).toMatch(/--help/);
  });

  it.each([
    [['demo', '--speed', 'fast'], '--speed must be a number from 1 to 3600'],
    [['demo', '--stop-after', 'soon'], '--stop-after must be a duration such as 30s or 2m'],
    [['simulate', '--port', '70000'], '--port must be a whole number from 0 to 65535'],
    [['simulate', '--port', '1.5'], '--port must be a whole number from 0 to 65535'],
    [['simulate', '--port', '0x50'], '--port must be a whole number from 0 to 65535'],
    [['simulate', '--seed', '1.5'], '--seed must be a whole number from 0 to 4294967295'],
    [['demo', '--speed', '1e3'], '--speed must be a number from 1 to 3600'],
    [['simulate', '--scenario', 'party'], 'unknown scenario "party"'],
  ])('exits 2 for a bad option value %j before starting anything', async (argv, message) => {
    const io = memoryIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.err()).toContain(message);
  });
});
