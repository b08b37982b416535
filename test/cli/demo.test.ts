import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/io';
import { runCli } from '../../cli/main';
import { memoryIo } from './io';

interface Printed {
  readonly rule: string;
  readonly status: 'firing' | 'resolved';
}

/** The memory Io, pressing Ctrl-C once stdout has shown `until`. */
function stoppingWhen(until: (stdout: string) => boolean) {
  const io = memoryIo();
  const wrapped: Io = {
    ...io,
    stdout: (text) => {
      io.stdout(text);
      if (until(io.out())) io.stop();
    },
  };
  return { io, wrapped };
}

describe('Command: demo', () => {
  it('prints firing and resolved JSON Lines, the banner on stderr, and stops by itself', async () => {
    const io = memoryIo();
    const code = await runCli(['demo', '--stop-after', '20s', '--speed', '120', '--json'], io);
    expect(code).toBe(0);
    const printed = io.outLines().map((line) => JSON.parse(line) as Printed);
    expect(printed.some((n) => n.status === 'firing')).toBe(true);
    expect(printed.some((n) => n.status === 'resolved')).toBe(true);
    expect(printed.map((n) => n.rule)).toContain('too-many-ringing');
    expect(io.err()).toMatch(
      /^telealert demo: simulator http:\/\/127\.0\.0\.1:\d+, scenario busy-evening, clock 120x/,
    );
    expect(io.err()).toMatch(/demo stopped: \d+ notifications \(\d+ firing, \d+ resolved\)/);
  }, 90_000);

  it('shows a firing and a resolved alert at the default speed and stops on Ctrl-C', async () => {
    const { io, wrapped } = stoppingWhen((out) => out.includes('"status":"resolved"'));
    const code = await runCli(['demo', '--json'], wrapped);
    expect(code).toBe(0);
    expect(io.stopSignal.aborted).toBe(true);
    const printed = io.outLines().map((line) => JSON.parse(line) as Printed);
    expect(printed.some((n) => n.status === 'firing')).toBe(true);
    expect(io.err()).toMatch(/clock 60x/);
    expect(io.err()).toMatch(/demo stopped: /);
  }, 90_000);

  it('prints readable lines with the banner on stdout without --json', async () => {
    const { io, wrapped } = stoppingWhen((out) => / IST {2}FIRING /.test(out));
    const code = await runCli(['demo', '--speed', '240'], wrapped);
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^telealert demo: simulator /);
    expect(out).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} IST {2}FIRING \S+: .* -> \S+/m);
    expect(out).not.toContain('\u001b[');
    expect(out).toMatch(/demo stopped: /);
    expect(io.err()).toBe('');
  }, 90_000);

  it('stops at once when Ctrl-C was pressed before it started polling', async () => {
    const io = memoryIo();
    io.stop();
    expect(await runCli(['demo', '--json'], io)).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/demo stopped: 0 notifications/);
  }, 90_000);
});
