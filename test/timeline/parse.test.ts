import { describe, expect, it } from 'vitest';
import { TimelineError } from '../../shared/timeline/errors';
import { parseTimeline } from '../../shared/timeline/parse';

const ZONE = 'Asia/Kolkata';
const line = (value: unknown): string => JSON.stringify(value);

describe('Function: parseTimeline', () => {
  it('reads successful and failed polls, with and without an offset', () => {
    const text = [
      line({
        at: '2026-11-21T10:00:00+05:30',
        source: 'live_calls',
        records: [
          {
            call_id: 'c1',
            state: 'RINGING',
            did: '918000000001',
            created_at: '2026-11-21 09:59:00',
          },
        ],
      }),
      '',
      line({ at: '2026-11-21 10:00:15', source: 'live_calls', error: { status: 500 } }),
      line({ at: '2026-11-21T04:35:00Z', source: 'payments', error: { kind: 'timeout' } }),
    ].join('\n');
    const entries = parseTimeline(text, 'busy.jsonl', ZONE);
    expect(entries.map((entry) => entry.atMs)).toEqual([
      Date.parse('2026-11-21T04:30:00Z'),
      Date.parse('2026-11-21T04:30:15Z'),
      Date.parse('2026-11-21T04:35:00Z'),
    ]);
    const [first, second, third] = entries;
    expect(first?.poll.ok && first.poll.records.record(0).fields.did).toBe('+918000000001');
    expect(first?.poll.ok && first.poll.records.record(0).createdAtMs).toBe(
      Date.parse('2026-11-21T04:29:00Z'),
    );
    expect(second?.poll).toEqual({
      ok: false,
      error: { kind: 'http', status: 500, message: 'HTTP 500' },
    });
    expect(third?.poll).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('reads a 403 as an authentication failure', () => {
    const entries = parseTimeline(
      line({ at: '2026-11-21T10:00:00+05:30', source: 'payments', error: { status: 403 } }),
      't',
      ZONE,
    );
    expect(entries[0]?.poll).toMatchObject({ ok: false, error: { kind: 'auth', status: 403 } });
  });

  it('reports every bad line at once as file:line: reason', () => {
    const text = [
      line({ at: '2026-11-21T10:00:00+05:30', source: 'live_calls', records: [] }),
      '{not json',
      line({ at: '2026-11-21T10:01:00+05:30', source: 'calls', records: [] }),
      line({ at: 'yesterday', source: 'live_calls', records: [] }),
      line({ at: '2026-11-21T09:00:00+05:30', source: 'live_calls', records: [] }),
      line({ at: '2026-11-21T10:02:00+05:30', source: 'live_calls' }),
      line({ at: '2026-11-21T10:02:00+05:30', source: 'live_calls', records: [], extra: 1 }),
    ].join('\n');
    let caught: unknown;
    try {
      parseTimeline(text, 'bad.jsonl', ZONE);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TimelineError);
    const error = caught as TimelineError;
    expect(error.issues.map((issue) => issue.line)).toEqual([2, 3, 4, 5, 6, 7]);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^bad\.jsonl:2: not JSON/);
    expect(lines[1]).toMatch(/^bad\.jsonl:3: source: /);
    expect(lines[2]).toMatch(/^bad\.jsonl:4: at: "yesterday"/);
    expect(lines[3]).toMatch(/^bad\.jsonl:5: .*time order/);
    expect(lines[4]).toMatch(/^bad\.jsonl:6: .*exactly one of "records"/);
    expect(lines[5]).toMatch(/^bad\.jsonl:7: .*extra/);
  });

  it('reads a timeline that starts with a byte-order mark', () => {
    const text = `\ufeff${line({ at: '2026-11-21T10:00:00+05:30', source: 'live_calls', records: [] })}`;
    expect(parseTimeline(text, 'bom.jsonl', ZONE)).toHaveLength(1);
  });

  it('refuses a date that does not exist instead of rolling it over', () => {
    const text = line({ at: '2026-02-30T10:00:00+05:30', source: 'live_calls', records: [] });
    expect(() => parseTimeline(text, 'feb.jsonl', ZONE)).toThrow(/^feb\.jsonl:1: at: /);
  });

  it('returns nothing for an empty timeline', () => {
    expect(parseTimeline('\n\n', 'empty.jsonl', ZONE)).toEqual([]);
  });
});
