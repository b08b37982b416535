import { describe, expect, it } from 'vitest';
import { makeOverride } from '../../shared/oncall/overrides';
import { handoffAt } from '../../shared/oncall/shifts';
import type { Override } from '../../shared/oncall/types';
import { nextHandoffs, onCallAt } from '../../shared/oncall/who';
import { formatApiDateTime } from '../../shared/time/zone';
import type { RotationConfig } from '../../shared/types/config';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const KOLKATA = 'Asia/Kolkata';
const LONDON = 'Europe/London';

const weekly: RotationConfig = {
  name: 'primary',
  members: ['asha', 'ravi', 'meera'],
  shiftMs: 7 * DAY,
  handoff: { weekday: 'mon', minutes: 9 * 60 },
  start: '2026-11-23',
};

const at = (iso: string) => Date.parse(iso);

function override(who: string, from: string, until: string, createdAt: number): Override {
  return makeOverride({
    rotation: 'primary',
    who,
    from: at(from),
    until: at(until),
    createdBy: 'lead',
    createdAt,
  });
}

describe('Function: onCallAt', () => {
  it("hands a weekly rotation over on Monday 09:00 in the config zone, members' turns in order", () => {
    // 09:00 IST is 03:30 UTC.
    expect(onCallAt(weekly, [], at('2026-11-23T03:30:00Z'), KOLKATA)).toEqual({
      who: 'asha',
      since: at('2026-11-23T03:30:00Z'),
      until: at('2026-11-30T03:30:00Z'),
    });
    expect(onCallAt(weekly, [], at('2026-11-30T03:29:59.999Z'), KOLKATA).who).toBe('asha');
    expect(onCallAt(weekly, [], at('2026-11-30T03:30:00Z'), KOLKATA).who).toBe('ravi');
    expect(onCallAt(weekly, [], at('2026-12-09T12:00:00Z'), KOLKATA).who).toBe('meera');
    expect(onCallAt(weekly, [], at('2026-12-14T03:30:00Z'), KOLKATA).who).toBe('asha');
  });

  it('runs the turns backwards before the first handoff, so someone is always on call', () => {
    expect(onCallAt(weekly, [], at('2026-11-23T03:29:59Z'), KOLKATA)).toMatchObject({
      who: 'meera',
      until: at('2026-11-23T03:30:00Z'),
    });
  });

  it('starts at the first handoff on or after the start date', () => {
    const fromWednesday = { ...weekly, start: '2026-11-25' };
    expect(handoffAt(fromWednesday, 0, KOLKATA)).toBe(at('2026-11-30T03:30:00Z'));
    const daily = { ...weekly, shiftMs: DAY, handoff: { minutes: 9 * 60 }, start: '2026-11-25' };
    expect(handoffAt(daily, 0, KOLKATA)).toBe(at('2026-11-25T03:30:00Z'));
  });

  it('keeps a daily handoff at 09:00 London time across both clock changes', () => {
    const daily: RotationConfig = {
      name: 'primary',
      members: ['asha', 'ravi'],
      shiftMs: DAY,
      handoff: { minutes: 9 * 60 },
      start: '2026-03-01',
    };
    // Clocks go forward on 2026-03-29 and back on 2026-10-25.
    const spring = onCallAt(daily, [], at('2026-03-28T12:00:00Z'), LONDON);
    expect(spring.since).toBe(at('2026-03-28T09:00:00Z'));
    expect(spring.until).toBe(at('2026-03-29T08:00:00Z'));
    expect(formatApiDateTime(spring.until as number, LONDON)).toBe('2026-03-29 09:00:00');
    const autumn = onCallAt(daily, [], at('2026-10-24T12:00:00Z'), LONDON);
    expect(autumn.since).toBe(at('2026-10-24T08:00:00Z'));
    expect(autumn.until).toBe(at('2026-10-25T09:00:00Z'));
    expect((autumn.until as number) - autumn.since).toBe(25 * HOUR);
  });

  it('skips a one-hour shift that falls in the hour London skips', () => {
    const hourly: RotationConfig = {
      name: 'primary',
      members: ['a', 'b', 'c'],
      shiftMs: HOUR,
      handoff: { minutes: 0 },
      start: '2026-03-29',
    };
    // Local 00:00 is a's, 01:00 (skipped) b's, 02:00 BST c's: b never carries the pager.
    expect(onCallAt(hourly, [], at('2026-03-29T00:59:59Z'), LONDON).who).toBe('a');
    expect(onCallAt(hourly, [], at('2026-03-29T01:00:00Z'), LONDON)).toMatchObject({
      who: 'c',
      since: at('2026-03-29T01:00:00Z'),
    });
    expect(
      nextHandoffs(hourly, [], at('2026-03-29T00:30:00Z'), LONDON, 1).map((h) => h.to),
    ).toEqual(['c']);
  });

  it('lets an override cover one night and the rotation resume after it', () => {
    const night = override('meera', '2026-11-27T14:30:00Z', '2026-11-28T03:30:00Z', 1);
    expect(onCallAt(weekly, [night], at('2026-11-27T14:29:59Z'), KOLKATA)).toMatchObject({
      who: 'asha',
      until: night.from,
    });
    expect(onCallAt(weekly, [night], at('2026-11-27T20:00:00Z'), KOLKATA)).toEqual({
      who: 'meera',
      since: night.from,
      until: night.until,
      override: night,
    });
    expect(onCallAt(weekly, [night], at('2026-11-28T03:30:00Z'), KOLKATA).who).toBe('asha');
  });

  it('gives the latest override where two overlap, whatever their order in the list', () => {
    const first = override('meera', '2026-11-27T00:00:00Z', '2026-11-28T00:00:00Z', 10);
    const later = override('ravi', '2026-11-27T12:00:00Z', '2026-11-27T18:00:00Z', 20);
    for (const list of [
      [first, later],
      [later, first],
    ]) {
      expect(onCallAt(weekly, list, at('2026-11-27T06:00:00Z'), KOLKATA).who).toBe('meera');
      expect(onCallAt(weekly, list, at('2026-11-27T13:00:00Z'), KOLKATA).who).toBe('ravi');
      expect(onCallAt(weekly, list, at('2026-11-27T19:00:00Z'), KOLKATA).who).toBe('meera');
    }
  });

  it('ignores overrides of other rotations', () => {
    const other = { ...override('ravi', '2026-11-27T00:00:00Z', '2026-11-28T00:00:00Z', 1) };
    const elsewhere = { ...other, rotation: 'secondary' };
    expect(onCallAt(weekly, [elsewhere], at('2026-11-27T06:00:00Z'), KOLKATA).who).toBe('asha');
  });

  it('says nobody takes over from the only member of a rotation', () => {
    const alone = { ...weekly, members: ['asha'] };
    expect(onCallAt(alone, [], at('2026-11-27T06:00:00Z'), KOLKATA).until).toBeUndefined();
    expect(nextHandoffs(alone, [], at('2026-11-27T06:00:00Z'), KOLKATA, 3)).toEqual([]);
  });

  it('treats a handoff to the person already on call as no handoff', () => {
    const swap = override('ravi', '2026-11-29T00:00:00Z', '2026-11-30T03:30:00Z', 1);
    // Ravi covers Asha's last day, then his own week starts: one handoff, at the override.
    expect(nextHandoffs(weekly, [swap], at('2026-11-28T00:00:00Z'), KOLKATA, 2)).toEqual([
      { at: swap.from, from: 'asha', to: 'ravi', override: swap },
      { at: at('2026-12-07T03:30:00Z'), from: 'ravi', to: 'meera' },
    ]);
  });
});

describe('Function: makeOverride', () => {
  it('refuses an override that ends before it starts or lasts more than 31 days', () => {
    expect(() => override('ravi', '2026-11-28T00:00:00Z', '2026-11-27T00:00:00Z', 1)).toThrow(
      'an override must end after it starts',
    );
    expect(() => override('ravi', '2026-11-01T00:00:00Z', '2026-12-03T00:00:00Z', 1)).toThrow(
      'at most 31 days',
    );
  });

  it('gives the same override the same id', () => {
    const a = override('ravi', '2026-11-27T00:00:00Z', '2026-11-28T00:00:00Z', 1);
    expect(override('ravi', '2026-11-27T00:00:00Z', '2026-11-28T00:00:00Z', 1).id).toBe(a.id);
    expect(override('ravi', '2026-11-27T00:00:00Z', '2026-11-28T00:00:00Z', 2).id).not.toBe(a.id);
  });
});
