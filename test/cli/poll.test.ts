import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLine } from '../../cli/commands/poll';
import type { Io } from '../../cli/lib/io';
import { runCli } from '../../cli/main';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { workDir } from './fixtures';
import { memoryIo } from './io';

const TOKEN = 'tok-7f3a9c-never-print-me';

/** api.baseUrl is unreachable on purpose: every test must reach the simulator by --base-url. */
const RULES = `timezone: Asia/Kolkata
api:
  baseUrl: https://api.example.com
  tokenParameter: /telealert/api-token
sources:
  live_calls:
    samples: 4
channels:
  oncall:
    email: [oncall@example.com]
rules:
  # Holds for any answer at all, so the first successful poll fires it.
  - name: calls-watched
    source: live_calls
    where: { state: [Ringing, Answered] }
    count: "< 100000"
    notify: [oncall]
  - name: any-payment
    source: payments
    where: { amount_paid: "> 100000000" }
    notify: [oncall]
`;

describe('Command: poll', () => {
  let sim: RunningSimulator;
  const dir = workDir({ 'rules.yaml': RULES });
  const poll = (extra: string[], env: Record<string, string | undefined>) => {
    const io = memoryIo({ cwd: dir.path, env });
    const argv = ['poll', '--once', '--config', 'rules.yaml', '--base-url', sim.url, ...extra];
    return runCli(argv, io).then((code) => ({ code, io }));
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, token: TOKEN, scenario: 'quiet' });
  });
  afterAll(async () => {
    await sim.close();
    dir.remove();
  });

  it('polls once, prints the firing as JSON Lines and keeps state in the --state file', async () => {
    const { code, io } = await poll(['--state', 'a/state.json'], { TELEALERT_TOKEN: TOKEN });
    expect(io.err()).not.toMatch(/failed/);
    expect(code).toBe(0);
    const notifications = io.outLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(notifications).toEqual([
      expect.objectContaining({ rule: 'calls-watched', status: 'firing', channels: ['oncall'] }),
    ]);
    expect(io.err()).toMatch(/^poll: live_calls: 1 sample\(s\), \d+ records, 1 event printed$/m);
    expect(io.err()).toMatch(/^poll: payments: 1 sample\(s\), \d+ records, 0 events printed$/m);
    expect(existsSync(join(dir.path, 'a/state.json'))).toBe(true);
  }, 60_000);

  it('prints messages with --messages, keeping the notifier state beside the pollers', async () => {
    const { code, io } = await poll(['--state', 'm.json', '--messages'], {
      TELEALERT_TOKEN: TOKEN,
    });
    expect(code).toBe(0);
    const messages = io.outLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages).toEqual([
      expect.objectContaining({
        channel: 'oncall',
        kind: 'alerts',
        alerts: [expect.objectContaining({ rule: 'calls-watched', status: 'firing' })],
        sms: null,
      }),
    ]);
    const file = JSON.parse(readFileSync(join(dir.path, 'm.json'), 'utf8')) as {
      notifier?: { revision: number; owed: Record<string, unknown> };
    };
    expect(file.notifier?.revision).toBe(1);
    expect(file.notifier?.owed).toEqual({});
    expect(io.err()).toMatch(
      /^poll: live_calls: 1 sample\(s\), \d+ records, 1 event to the notifier, 1 message printed$/m,
    );
  }, 60_000);

  it('does not repeat a firing alert on a second run with the same state file', async () => {
    const first = await poll(['--state', 'b.json'], { TELEALERT_TOKEN: TOKEN });
    expect(first.code).toBe(0);
    expect(first.io.outLines()).toHaveLength(1);
    const second = await poll(['--state', 'b.json'], { TELEALERT_TOKEN: TOKEN });
    expect(second.code).toBe(0);
    expect(second.io.out()).toBe('');
    expect(second.io.err()).toMatch(
      /^poll: live_calls: 1 sample\(s\), \d+ records, 0 events printed$/m,
    );
  }, 60_000);

  it('asks the simulator named by --base-url, not api.baseUrl, with the bearer token', async () => {
    const before = sim.requests.length;
    const { code } = await poll(['--state', 'c.json'], { TELEALERT_TOKEN: TOKEN });
    expect(code).toBe(0);
    const seen = sim.requests.slice(before);
    expect(seen.map((request) => request.path).sort()).toEqual([
      '/v1/billing/payments/online',
      '/v1/live_calls',
    ]);
    expect(seen.every((request) => request.authorized)).toBe(true);
  }, 60_000);

  it('exits 2 with what to do when TELEALERT_TOKEN is not set, before any request', async () => {
    const before = sim.requests.length;
    for (const env of [{}, { TELEALERT_TOKEN: '  ' }]) {
      const { code, io } = await poll(['--state', 'd.json'], env);
      expect(code).toBe(2);
      expect(io.err()).toBe(
        'telealert: no API token: export TELEALERT_TOKEN=<the bearer token from the provider panel>\n',
      );
    }
    expect(sim.requests.length).toBe(before);
  }, 60_000);

  it('reports the failed polls and exits 1 on a rejected token, never printing a token', async () => {
    const wrong = 'wrong-9d2e-never-print-me';
    const { code, io } = await poll(['--state', 'e.json'], { TELEALERT_TOKEN: wrong });
    expect(code).toBe(1);
    expect(io.err()).toMatch(
      /^poll: live_calls: 1 sample\(s\), 0 records, 1 failed poll\(s\) \(.*403.*\), 0 events printed$/m,
    );
    expect(io.err()).toMatch(/^poll: payments: .*1 failed poll\(s\) \(.*403.*\)/m);
    // One failure is below health.after (3): no source_unavailable yet.
    expect(io.out()).toBe('');
    expect(`${io.out()}${io.err()}`).not.toContain(wrong);
    expect(`${io.out()}${io.err()}`).not.toContain(TOKEN);
  }, 60_000);

  it('raises one source_unavailable after health.after failed runs, without the token', async () => {
    const wrong = 'wrong-4b1c-never-print-me';
    const outputs: string[] = [];
    for (let run = 0; run < 4; run++) {
      const { code, io } = await poll(['--state', 'f.json'], { TELEALERT_TOKEN: wrong });
      expect(code).toBe(1);
      outputs.push(io.out(), io.err());
    }
    const fired = outputs
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { rule: string; status: string; key: string });
    expect(fired.map((n) => `${n.status} ${n.key}`).sort()).toEqual([
      'firing source_unavailable{source=live_calls}',
      'firing source_unavailable{source=payments}',
    ]);
    expect(outputs.join('')).not.toContain(wrong);
  }, 60_000);

  it('exits 2 when --base-url is not a usable URL', async () => {
    const io = memoryIo({ cwd: dir.path, env: { TELEALERT_TOKEN: TOKEN } });
    const code = await runCli(
      ['poll', '--once', '--config', 'rules.yaml', '--base-url', 'ftp://example.com'],
      io,
    );
    expect(code).toBe(2);
    expect(io.err()).toMatch(/^telealert: --base-url: /);
    expect(io.err()).not.toContain(TOKEN);
  });

  it('says there is nothing to poll and exits 0 when the rules file has no rules', async () => {
    const empty = RULES.slice(0, RULES.indexOf('rules:')).concat('rules: []\n');
    dir.write('empty.yaml', empty);
    const io = memoryIo({ cwd: dir.path, env: { TELEALERT_TOKEN: TOKEN } });
    const argv = ['poll', '--config', 'empty.yaml', '--base-url', sim.url, '--state', 'e.json'];
    expect(await runCli(argv, io)).toBe(0);
    expect(io.err()).toBe('poll: the rules file has no rules, so there is nothing to poll\n');
    expect(io.outLines()).toEqual([]);
  });

  it('keeps polling on the schedule without --once until Ctrl-C, then exits 0', async () => {
    const io = memoryIo({ cwd: dir.path, env: { TELEALERT_TOKEN: TOKEN } });
    // Ctrl-C as soon as the first notification is printed.
    const stopping: Io = {
      ...io,
      stdout: (text) => {
        io.stdout(text);
        io.stop();
      },
    };
    const argv = ['poll', '--config', 'rules.yaml', '--base-url', sim.url, '--state', 'g.json'];
    expect(await runCli(argv, stopping)).toBe(0);
    expect(io.outLines()[0]).toMatch(/"rule":"calls-watched","status":"firing"/);
    expect(io.err()).toMatch(/^poll: live_calls: /m);
  }, 60_000);
});

describe('Function: runLine', () => {
  const summary = {
    source: 'live_calls' as const,
    samples: 4,
    samplesPlanned: 4,
    sent: 7,
    owedLeft: 0,
    records: 120,
    skipped: 0,
    failures: 0,
    conflicts: 0,
  };

  it('counts the messages printed, not the events, when the notifier groups seven events into one', () => {
    expect(runLine(summary, undefined, 1)).toBe(
      'poll: live_calls: 4 sample(s), 120 records, 7 events to the notifier, 1 message printed\n',
    );
  });

  it('counts the events printed without --messages', () => {
    expect(runLine(summary, undefined, undefined)).toBe(
      'poll: live_calls: 4 sample(s), 120 records, 7 events printed\n',
    );
  });
});
