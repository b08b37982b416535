import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/lib/io';
import { runCli } from '../../cli/main';
import { memoryIo } from './io';

interface Printed {
  readonly channel: string;
  readonly kind: string;
  readonly oncall?: string;
  readonly alerts: readonly {
    readonly rule: string;
    readonly key: string;
    readonly status: 'firing' | 'resolved';
  }[];
}

const alertsOf = (printed: readonly Printed[]) => printed.flatMap((message) => message.alerts);
const parsed = (out: string) =>
  out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Printed);

/**
 * The story of the shipped rotation in the demo's output: the handoff that changes who is on
 * call (after the channel's first step told the first person), and the message after it that
 * tells firing again an alert told firing before it (a repeat). Undefined until both printed.
 */
function handoverStory(printed: readonly Printed[]) {
  const handoffs = printed.flatMap((message, index) =>
    message.kind === 'handoff' ? [{ message, index }] : [],
  );
  const first = handoffs[0];
  const change = handoffs.find(({ message }) => message.oncall !== first?.message.oncall);
  if (first === undefined || change === undefined) return undefined;
  const firingKeys = (messages: readonly Printed[]) =>
    new Set(
      messages
        .filter((message) => message.kind === 'alerts')
        .flatMap((message) => message.alerts)
        .filter((alert) => alert.status === 'firing')
        .map((alert) => alert.key),
    );
  const repeatAt = printed.findIndex(
    (message, index) =>
      index > change.index &&
      message.channel === 'oncall' &&
      message.kind === 'alerts' &&
      message.alerts.some(
        (alert) => alert.status === 'firing' && firingKeys(printed.slice(0, index)).has(alert.key),
      ),
  );
  if (repeatAt < 0) return undefined;
  return { first: first.message, change, repeat: printed[repeatAt] as Printed, repeatAt };
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
  it('prints messages as JSON Lines, fewer than the events, the banner on stderr, and stops by itself', async () => {
    const io = memoryIo();
    const code = await runCli(['demo', '--stop-after', '20s', '--speed', '120', '--json'], io);
    expect(code).toBe(0);
    const printed = io.outLines().map((line) => JSON.parse(line) as Printed);
    expect(printed.every((m) => ['alerts', 'digest', 'handoff'].includes(m.kind))).toBe(true);
    expect(alertsOf(printed).some((a) => a.status === 'firing')).toBe(true);
    expect(alertsOf(printed).some((a) => a.status === 'resolved')).toBe(true);
    expect(alertsOf(printed).map((a) => a.rule)).toContain('too-many-ringing');
    expect(io.err()).toMatch(
      /^telealert demo: simulator http:\/\/127\.0\.0\.1:\d+, scenario busy-evening, clock 120x/,
    );
    const summary =
      /(\d+) alert events became (\d+) messages \((\d+) with an SMS, \d+ SMS held by the cap, \d+ digests, (\d+) handoffs?\)/.exec(
        io.err(),
      );
    expect(Number(summary?.[2])).toBe(printed.length);
    expect(Number(summary?.[1])).toBeGreaterThan(printed.length);
    expect(Number(summary?.[4])).toBe(printed.filter((m) => m.kind === 'handoff').length);
  }, 90_000);

  it('pages the person on call, hands the pager over at the shipped handoff, and sends the repeat to the incoming person', async () => {
    const { io, wrapped } = stoppingWhen((out) => handoverStory(parsed(out)) !== undefined);
    // Stopped by the story; --stop-after (4 simulated hours) ends a run that never tells it.
    const argv = ['demo', '--speed', '240', '--json', '--stop-after', '60s'];
    expect(await runCli(argv, wrapped)).toBe(0);
    const printed = parsed(io.out());
    const story = handoverStory(printed);
    // The day shift (asha) is on call when the demo starts at 20:20; the night shift (ravi)
    // takes over at 21:00 (the shipped rotation).
    expect(story?.first.oncall).toBe('asha');
    expect(story?.change.message).toMatchObject({
      channel: 'oncall',
      kind: 'handoff',
      oncall: 'ravi',
    });
    const before = printed.slice(0, story?.change.index);
    const pagesBefore = before.filter(
      (m) =>
        m.channel === 'oncall' &&
        m.kind === 'alerts' &&
        m.alerts.some((a) => a.status === 'firing'),
    );
    expect(pagesBefore.length).toBeGreaterThan(0);
    expect(pagesBefore.every((m) => m.oncall === 'asha')).toBe(true);
    expect(story?.repeat.oncall).toBe('ravi');
    // Every message of the channel after the handoff reaches ravi; finance has no rotation.
    const after = printed.slice((story?.change.index ?? 0) + 1);
    expect(after.filter((m) => m.channel === 'oncall').every((m) => m.oncall === 'ravi')).toBe(
      true,
    );
    expect(
      printed.filter((m) => m.channel === 'finance').every((m) => m.oncall === undefined),
    ).toBe(true);
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
    const { io, wrapped } = stoppingWhen((out) =>
      /on call: asha\n {2}SMS .*\n {2}email {2}\[/.test(out),
    );
    const code = await runCli(['demo', '--speed', '240'], wrapped);
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^telealert demo: simulator /);
    // The channel's first step tells asha she is on call (the demo starts at 20:20, her day
    // shift). Which alert is told first depends on how far the scenario's clock (real time,
    // 240x) got before the first poll, so on how busy the machine is: any first page, in the
    // printed shape (test/cli/lib/format.test.ts pins its every character).
    expect(out).toMatch(
      /^\d{4}-\d{2}-\d{2} 20:2\d:\d{2} IST {2}oncall {2}handoff: asha is on call \(nothing firing\)\n {2}SMS {4}asha: on call for oncall until \w{3} \d+ \w{3} 21:00; no firing alerts\n/m,
    );
    expect(out).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} IST {2}oncall {2}alerts \(\d+ alerts?\) {2}on call: asha\n {2}SMS {4}\S.*\n {2}email {2}\[(CRITICAL|WARNING)\] \S/m,
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
