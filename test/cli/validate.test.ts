import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import { BAD_RULES, REPO_ROOT, SHIPPED_RULES_TEXT, workDirs } from './fixtures';
import { memoryIo, STACK_FRAME } from './io';

describe('Command: validate', () => {
  const tmp = workDirs();

  it('accepts the shipped telealert.yaml from the working directory with a summary', async () => {
    const io = memoryIo({ cwd: REPO_ROOT });
    expect(await runCli(['validate'], io)).toBe(0);
    expect(io.out()).toBe('telealert.yaml: ok (4 rules, 2 channels, timezone Asia/Kolkata)\n');
    expect(io.err()).toBe('');
  });

  it('counts one rule and one channel in the singular', async () => {
    const dir = tmp({
      'one.yaml': `api: { baseUrl: https://api.example.com, tokenParameter: /t }
channels: { oncall: {} }
rules:
  - { name: r, source: payments, notify: [oncall] }
`,
    });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'one.yaml'], io)).toBe(0);
    expect(io.out()).toBe('one.yaml: ok (1 rule, 1 channel, timezone Asia/Kolkata)\n');
  });

  it('reads the file named by --config relative to the working directory', async () => {
    const dir = tmp({ 'rules.yaml': SHIPPED_RULES_TEXT });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'rules.yaml'], io)).toBe(0);
    expect(io.out()).toMatch(/^rules\.yaml: ok \(4 rules/);
  });

  it('exits 2 with every error as file: path: reason on its own line', async () => {
    const dir = tmp({ 'bad.yaml': BAD_RULES });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'bad.yaml'], io)).toBe(2);
    expect(io.out()).toBe('');
    const lines = io.err().trimEnd().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.yaml: timezone: .*IANA/),
        expect.stringMatching(/^bad\.yaml: api: is required/),
        expect.stringMatching(/^bad\.yaml: sources\.live_calls\.every: must be at least 1m/),
        expect.stringMatching(/^bad\.yaml: rules\[0\]\.name: /),
        expect.stringMatching(/^bad\.yaml: rules\[0\]\.where\.stat: .*did you mean "state"\?/),
        expect.stringMatching(/^bad\.yaml: rules\[0\]\.notify\[0\]: no channel named "pager"/),
        expect.stringMatching(/^bad\.yaml: rules\[1\]\.sevrity: .*did you mean "severity"\?/),
        expect.stringMatching(
          /^bad\.yaml: rules\[1\]\.where\.amount_paid: operator must be one of >, <, >=, <=, <>/,
        ),
      ]),
    );
    expect(lines).toHaveLength(8);
  });

  it('exits 2 with file:line:column on a YAML syntax error', async () => {
    const dir = tmp({ 'broken.yaml': 'rules:\n  - [\n' });
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'broken.yaml'], io)).toBe(2);
    expect(io.err()).toMatch(/^broken\.yaml:\d+:\d+: YAML: /);
  });

  it('exits 2 on an alias to an anchor that is never set, without a stack trace', async () => {
    const dir = tmp({ 'alias.yaml': '*nowhere' });
    const io = memoryIo({ cwd: dir.path, env: { TELEALERT_DEBUG: '0' } });
    expect(await runCli(['validate', '--config', 'alias.yaml'], io)).toBe(2);
    expect(io.err()).toMatch(/^alias\.yaml: YAML: Unresolved alias/);
    expect(io.err()).not.toMatch(STACK_FRAME);
  });

  it('exits 2 with a clear message when the default telealert.yaml is missing', async () => {
    const dir = tmp();
    const io = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate'], io)).toBe(2);
    expect(io.err()).toBe(
      'telealert: telealert.yaml: no such file (the rules file; pass --config or see docs/rules.md)\n',
    );
  });

  it('exits 2 when --config names a missing file or a directory', async () => {
    const dir = tmp();
    const missing = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', 'nope.yaml'], missing)).toBe(2);
    expect(missing.err()).toMatch(/^telealert: nope\.yaml: no such file/);
    const directory = memoryIo({ cwd: dir.path });
    expect(await runCli(['validate', '--config', '.'], directory)).toBe(2);
    expect(directory.err()).toMatch(/^telealert: \.: is a directory/);
  });
});
