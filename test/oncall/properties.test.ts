import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeOverride } from '../../shared/oncall/overrides';
import { handoffAt } from '../../shared/oncall/shifts';
import type { Override } from '../../shared/oncall/types';
import { nextHandoffs, onCallAt } from '../../shared/oncall/who';
import { formatApiDateTime } from '../../shared/time/zone';
import { type RotationConfig, WEEKDAYS } from '../../shared/types/config';

const RUNS = { numRuns: 200 };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ['Europe/London', 'Asia/Kolkata', 'America/New_York'] as const;
const YEAR_START = Date.parse('2026-01-01T00:00:00Z');
const YEAR = 365 * DAY;
const PEOPLE = ['asha', 'ravi', 'meera', 'dev'];

const rotationArb: fc.Arbitrary<RotationConfig> = fc
  .record({
    count: fc.integer({ min: 1, max: 4 }),
    shift: fc.constantFrom(HOUR, 90 * 60_000, 8 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY),
    minutes: fc.integer({ min: 0, max: 1439 }),
    weekday: fc.constantFrom(...WEEKDAYS),
    startDay: fc.integer({ min: 0, max: 300 }),
  })
  .map(({ count, shift, minutes, weekday, startDay }) => ({
    name: 'primary',
    members: PEOPLE.slice(0, count),
    shiftMs: shift,
    handoff: shift % (7 * DAY) === 0 ? { weekday, minutes } : { minutes },
    start: new Date(YEAR_START + startDay * DAY).toISOString().slice(0, 10),
  }));

const instantArb = fc.integer({ min: YEAR_START, max: YEAR_START + YEAR });

/** Overrides of `primary` within the year, each created at its own time. */
const overridesArb: fc.Arbitrary<Override[]> = fc
  .array(
    fc.record({
      who: fc.constantFrom(...PEOPLE, 'cover'),
      from: instantArb,
      lengthMs: fc.integer({ min: 60_000, max: 3 * DAY }),
      createdAt: fc.integer({ min: 0, max: 1000 }),
    }),
    { maxLength: 5 },
  )
  .map((list) =>
    list.map(({ who, from, lengthMs, createdAt }, index) =>
      makeOverride({
        rotation: index % 4 === 3 ? 'elsewhere' : 'primary',
        who,
        from,
        until: from + lengthMs,
        createdBy: 'lead',
        createdAt,
      }),
    ),
  );

/** The model: the rotation's turn from its handoff list, unless an override holds the instant. */
function modelWho(
  rotation: RotationConfig,
  overrides: readonly Override[],
  atMs: number,
  zone: string,
): string {
  const holding = overrides
    .map((override, index) => ({ override, index }))
    .filter(({ override }) => override.rotation === 'primary')
    .filter(({ override }) => override.from <= atMs && atMs < override.until)
    .sort((a, b) => a.override.createdAt - b.override.createdAt || a.index - b.index);
  const last = holding[holding.length - 1];
  if (last !== undefined) return last.override.who;
  // From a few shifts before (a clock change moves a handoff by an hour at most), walk the
  // handoffs one by one: the last one at or before the instant.
  let n = Math.floor((atMs - handoffAt(rotation, 0, zone)) / rotation.shiftMs) - 3;
  while (handoffAt(rotation, n + 1, zone) <= atMs) n += 1;
  const count = rotation.members.length;
  return rotation.members[((n % count) + count) % count] as string;
}

describe('Property: who is on call', () => {
  it('is the model answer at any instant, with overlapping overrides, in zones with and without DST', () => {
    fc.assert(
      fc.property(
        rotationArb,
        overridesArb,
        instantArb,
        fc.constantFrom(...ZONES),
        (rotation, overrides, atMs, zone) => {
          expect(onCallAt(rotation, overrides, atMs, zone).who).toBe(
            modelWho(rotation, overrides, atMs, zone),
          );
        },
      ),
      RUNS,
    );
  });

  it('holds still between changes and changes exactly at each listed handoff', () => {
    fc.assert(
      fc.property(
        rotationArb,
        overridesArb,
        instantArb,
        fc.constantFrom(...ZONES),
        (rotation, overrides, atMs, zone) => {
          const now = onCallAt(rotation, overrides, atMs, zone);
          expect(now.since).toBeLessThanOrEqual(atMs);
          expect(onCallAt(rotation, overrides, now.since, zone).who).toBe(now.who);
          const changes = nextHandoffs(rotation, overrides, atMs, zone, 3);
          let previous = { at: atMs, who: now.who };
          for (const change of changes) {
            expect(change.at).toBeGreaterThan(previous.at);
            expect(change.from).toBe(previous.who);
            expect(change.to).not.toBe(change.from);
            expect(onCallAt(rotation, overrides, change.at - 1, zone).who).toBe(change.from);
            expect(onCallAt(rotation, overrides, change.at, zone).who).toBe(change.to);
            const middle = Math.floor((previous.at + change.at) / 2);
            expect(onCallAt(rotation, overrides, middle, zone).who).toBe(previous.who);
            previous = { at: change.at, who: change.to };
          }
          if (rotation.members.length > 1) expect(changes).toHaveLength(3);
        },
      ),
      RUNS,
    );
  });

  it('hands whole-day shifts over at the handoff time on the local clock, DST or not', () => {
    const wholeDays = rotationArb.filter(
      (rotation) =>
        rotation.shiftMs % DAY === 0 &&
        // Outside the hours a clock change skips (01:00-03:00 covers London and New York).
        (rotation.handoff.minutes < 60 || rotation.handoff.minutes >= 180),
    );
    fc.assert(
      fc.property(
        wholeDays,
        fc.integer({ min: -5, max: 60 }),
        fc.constantFrom(...ZONES),
        (rotation, n, zone) => {
          const at = handoffAt(rotation, n, zone);
          const clock = formatApiDateTime(at, zone).slice(11, 16);
          const minutes = rotation.handoff.minutes;
          expect(clock).toBe(
            `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
          );
          const day =
            WEEKDAYS[new Date(`${formatApiDateTime(at, zone).slice(0, 10)}T00:00:00Z`).getUTCDay()];
          if (rotation.handoff.weekday !== undefined) expect(day).toBe(rotation.handoff.weekday);
          const length = handoffAt(rotation, n + 1, zone) - at;
          if (zone === 'Asia/Kolkata') expect(length).toBe(rotation.shiftMs);
          else expect(Math.abs(length - rotation.shiftMs)).toBeLessThanOrEqual(HOUR);
        },
      ),
      RUNS,
    );
  });

  it('gives members their turns in order when no override intervenes (Asia/Kolkata, no DST)', () => {
    fc.assert(
      fc.property(
        rotationArb.filter((rotation) => rotation.members.length > 1),
        instantArb,
        (rotation, atMs) => {
          const changes = nextHandoffs(rotation, [], atMs, 'Asia/Kolkata', 4);
          for (const change of changes) {
            const index = rotation.members.indexOf(change.from);
            expect(change.to).toBe(rotation.members[(index + 1) % rotation.members.length]);
          }
        },
      ),
      RUNS,
    );
  });
});
