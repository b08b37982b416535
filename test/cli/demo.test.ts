import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/lib/io';
import { runCli } from '../../cli/main';
import { memoryIo } from './io';

interface Printed {
  readonly channel: string;
  readonly kind: string;
  readonly alerts: readonly { readonly rule: string; readonly status: 'firing' | 'resolved' }[];
}

const alertsOf = (printed: readonly Printed[]) => printed.flatMap((message) => message.alerts);

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
  it('prints messages as JSON Lines, fewer than the events, the banner on stderr, and stops by itself', async () => {
    const io = memoryIo();
    const code = await runCli(['demo', '--stop-after', '20s', '--speed', '120', '--json'], io);
    expect(code).toBe(0);
    const printed = io.outLines().map((line) => JSON.parse(line) as Printed);
    expect(printed.every((m) => m.kind === 'alerts' || m.kind === 'digest')).toBe(true);
    expect(alertsOf(printed).some((a) => a.status === 'firing')).toBe(true);
    expect(alertsOf(printed).some((a) => a.status === 'resolved')).toBe(true);
    expect(alertsOf(printed).map((a) => a.rule)).toContain('too-many-ringing');
    expect(io.err()).toMatch(
      /^telealert demo: simulator http:\/\/127\.0\.0\.1:\d+, scenario busy-evening, clock 120x/,
    );
    const summary =
      /(\d+) alert events became (\d+) messages \((\d+) with an SMS, \d+ SMS held by the cap, \d+ digests\)/.exec(
        io.err(),
      );
    expect(Number(summary?.[2])).toBe(printed.length);
    expect(Number(summary?.[1])).toBeGreaterThan(printed.length);
  }, 90_000);

  it('prints the alert events too with --events', async () => {
    const { io, wrapped } = stoppingWhen(
      (out) => /"rule":"too-many-ringing"/.test(out) && /"channel":"oncall"/.test(out),
    );
    const code = await runCli(['demo', '--speed', '240', '--json', '--events'], wrapped);
    expect(code).toBe(0);
    const lines = io.outLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((line) => line.status === 'firing' && line.rule === 'too-many-ringing')).toBe(
      true,
    );
    expect(lines.some((line) => line.kind === 'alerts')).toBe(true);
  }, 90_000);

  it('shows a firing and a resolved alert at the default speed and stops on Ctrl-C', async () => {
    const { io, wrapped } = stoppingWhen((out) => out.includes('"status":"resolved"'));
    const code = await runCli(['demo', '--json'], wrapped);
    expect(code).toBe(0);
    expect(io.stopSignal.aborted).toBe(true);
    const printed = io.outLines().map((line) => JSON.parse(line) as Printed);
    expect(alertsOf(printed).some((a) => a.status === 'firing')).toBe(true);
    expect(io.err()).toMatch(/clock 60x/);
    expect(io.err()).toMatch(/demo stopped after /);
  }, 90_000);

  it('prints what people receive, readable, with the banner on stdout without --json', async () => {
    const { io, wrapped } = stoppingWhen((out) => / {2}email {2}\[/.test(out));
    const code = await runCli(['demo', '--speed', '240'], wrapped);
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^telealert demo: simulator /);
    // Which alert is told first depends on how far the scenario's clock (real time, 240x) got
    // before the first poll, so on how busy the machine is: any first message, in the printed
    // shape (test/cli/lib/format.test.ts pins its every character).
    expect(out).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} IST {2}oncall {2}alerts \(\d+ alerts?\)\n {2}SMS {4}\S.*\n {2}email {2}\[(CRITICAL|WARNING)\] \S/m,
    );
    expect(out).not.toContain('\u001b[');
    expect(out).toMatch(/demo stopped after /);
    expect(io.err()).toBe('');
  }, 90_000);

  it('stops at once when Ctrl-C was pressed before it started polling', async () => {
    const io = memoryIo();
    io.stop();
    expect(await runCli(['demo', '--json'], io)).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/demo stopped after .*: 0 alert events became 0 messages/);
  }, 90_000);
});
