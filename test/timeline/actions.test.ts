import { describe, expect, it } from 'vitest';
import { TimelineError } from '../../shared/timeline/errors';
import { readTimeline } from '../../shared/timeline/parse';

const ZONE = 'Asia/Kolkata';
const line = (value: unknown): string => JSON.stringify(value);
const AT = '2026-11-21 10:00:00';
const AT_MS = Date.parse('2026-11-21T10:00:00+05:30');

function issuesOf(text: string): string[] {
  try {
    readTimeline(text, 't.jsonl', ZONE);
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineError);
    return (error as TimelineError).message.split('\n');
  }
  throw new Error('expected a TimelineError');
}

describe("Function: readTimeline (people's actions)", () => {
  it('reads a silence for a duration or until a time, and an ack by key or rule, beside the polls', () => {
    const timeline = readTimeline(
      [
        line({ at: AT, source: 'live_calls', records: [] }),
        line({
          at: AT,
          silence: {
            matchers: { rule: 'large-payment', did: 8000000001 },
            for: '2h',
            comment: 'batch',
            by: 'asha',
          },
        }),
        line({
          at: AT,
          silence: {
            matchers: { severity: 'info' },
            until: '2026-11-21 11:30:00',
            comment: 'noise',
          },
        }),
        line({ at: '2026-11-21 10:05:00', ack: { key: 'ringing{call_id=c1}', by: 'ravi' } }),
        line({ at: '2026-11-21 10:06:00', ack: { rule: 'ringing' } }),
      ].join('\n'),
      't.jsonl',
      ZONE,
    );
    expect(timeline.entries).toHaveLength(1);
    expect(timeline.actions.map(({ atMs, action }) => ({ atMs, action }))).toEqual([
      {
        atMs: AT_MS,
        action: {
          kind: 'silence',
          silence: expect.objectContaining({
            matchers: { did: '8000000001', rule: 'large-payment' },
            startsAt: AT_MS,
            endsAt: AT_MS + 7_200_000,
            comment: 'batch',
            createdBy: 'asha',
          }),
        },
      },
      {
        atMs: AT_MS,
        action: {
          kind: 'silence',
          silence: expect.objectContaining({ endsAt: AT_MS + 5_400_000, createdBy: 'replay' }),
        },
      },
      { atMs: AT_MS + 300_000, action: { kind: 'ack', key: 'ringing{call_id=c1}', by: 'ravi' } },
      { atMs: AT_MS + 360_000, action: { kind: 'ack', rule: 'ringing', by: 'replay' } },
    ]);
  });

  it('refuses a silence without matchers or end, an ack naming both or neither, and time going back', () => {
    expect(
      issuesOf(
        [
          line({ at: AT, silence: { matchers: {}, for: '1h', comment: 'all' } }),
          line({ at: AT, silence: { matchers: { rule: 'x' }, comment: 'forever' } }),
          line({ at: AT, silence: { matchers: { rule: 'x' }, for: 'soon', comment: 'c' } }),
          line({ at: AT, ack: { key: 'k', rule: 'r' } }),
          line({ at: AT, ack: { key: 'k' } }),
          line({ at: '2026-11-21 09:00:00', ack: { key: 'k' } }),
        ].join('\n'),
      ),
    ).toEqual([
      expect.stringContaining('t.jsonl:1: silence: a silence needs at least one matcher'),
      't.jsonl:2: silence: a silence needs exactly one of "for" (a duration) or "until" (a time)',
      't.jsonl:3: silence.for: "soon" is not a duration (90s, 15m, 2h)',
      't.jsonl:4: ack: an ack needs exactly one of "key" or "rule"',
      't.jsonl:6: at: earlier than the line before; keep time order',
    ]);
  });
});

describe('Function: readTimeline (overrides)', () => {
  it('reads an override of a rotation, added at its line, for its from..until in the zone', () => {
    const timeline = readTimeline(
      line({
        at: AT,
        override: {
          rotation: 'primary',
          who: 'ravi',
          from: '2026-11-21 20:00',
          until: '2026-11-22T09:00:00+05:30',
          by: 'asha',
        },
      }),
      't.jsonl',
      ZONE,
    );
    expect(timeline.actions).toEqual([
      {
        atMs: AT_MS,
        action: {
          kind: 'override',
          override: expect.objectContaining({
            rotation: 'primary',
            who: 'ravi',
            from: Date.parse('2026-11-21T20:00:00+05:30'),
            until: Date.parse('2026-11-22T09:00:00+05:30'),
            createdBy: 'asha',
            createdAt: AT_MS,
          }),
        },
      },
    ]);
  });

  it('names an override that ends before it starts, a bad time and a missing person', () => {
    expect(
      issuesOf(
        [
          line({
            at: AT,
            override: { rotation: 'primary', who: 'ravi', from: AT, until: '2026-11-21 09:00' },
          }),
          line({
            at: AT,
            override: { rotation: 'primary', who: 'ravi', from: 'tonight', until: AT },
          }),
          line({ at: AT, override: { rotation: 'primary', from: AT, until: AT } }),
        ].join('\n'),
      ),
    ).toEqual([
      't.jsonl:1: override: an override must end after it starts',
      't.jsonl:2: override.from: "tonight" is not a time',
      expect.stringMatching(/^t\.jsonl:3: override\.who: /),
    ]);
  });
});

describe('Function: readTimeline (notifier outages)', () => {
  it('reads the notifier down from its line for a duration, beside the polls', () => {
    const timeline = readTimeline(
      [
        line({ at: AT, source: 'live_calls', records: [] }),
        line({ at: AT, notifier: { down: '34m' } }),
        line({ at: '2026-11-21 10:30:00', source: 'live_calls', records: [] }),
      ].join('\n'),
      't.jsonl',
      ZONE,
    );
    expect(timeline.entries).toHaveLength(2);
    expect(timeline.outages).toEqual([{ fromMs: AT_MS, toMs: AT_MS + 34 * 60_000 }]);
  });

  it('names a duration that is none, a missing one and time going back', () => {
    expect(
      issuesOf(
        [
          line({ at: AT, source: 'live_calls', records: [] }),
          line({ at: AT, notifier: { down: 'a while' } }),
          line({ at: AT, notifier: {} }),
          line({ at: '2026-11-21 09:00:00', notifier: { down: '5m' } }),
        ].join('\n'),
      ),
    ).toEqual([
      't.jsonl:2: notifier.down: "a while" is not a duration (90s, 15m, 2h)',
      expect.stringMatching(/^t\.jsonl:3: notifier\.down: /),
      't.jsonl:4: at: earlier than the line before; keep time order',
    ]);
  });
});
