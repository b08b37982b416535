import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FollowedAlerts } from '../../shared/notifier/follow';
import type { TrackedAlert } from '../../shared/notifier/types';
import { SEVERITIES, type Severity } from '../../shared/types/config';

/** A severity the rules no longer know, as a state written under other rules might hold. */
const RETIRED = 'retired' as Severity;
const severityArb = fc.constantFrom<Severity>(...SEVERITIES, RETIRED);

/**
 * The choice as it was made before the index (issue 27), a pass over every followed alert: of
 * those strictly less severe than the newcomer, the least severe, then the newest, then the
 * greatest key.
 */
function displacedByScan(
  alerts: ReadonlyMap<string, TrackedAlert>,
  severity: Severity,
): string | undefined {
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  let chosen: [string, TrackedAlert] | undefined;
  for (const [key, tracked] of alerts) {
    if (rank(tracked.severity) >= rank(severity)) continue;
    if (chosen === undefined) {
      chosen = [key, tracked];
      continue;
    }
    const [chosenKey, other] = chosen;
    const first =
      tracked.severity !== other.severity
        ? rank(tracked.severity) < rank(other.severity)
        : tracked.firedAt !== other.firedAt
          ? tracked.firedAt > other.firedAt
          : key > chosenKey;
    if (first) chosen = [key, tracked];
  }
  return chosen?.[0];
}

const tracked = (severity: Severity, firedAt: number, lastFiringAt = firedAt): TrackedAlert => ({
  rule: 'ringing',
  source: 'live_calls',
  severity,
  labels: {},
  channels: ['oncall'],
  firedAt,
  lastFiringAt,
});

// Few keys and instants, so that alerts share a severity and a firing time and keys come back.
const keyArb = fc.oneof(fc.constantFrom('a', 'b', 'c', 'B', 'a1'), fc.string({ maxLength: 2 }));
const firedAtArb = fc.integer({ min: 0, max: 3 });
const commandArb = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    key: keyArb,
    severity: severityArb,
    firedAt: firedAtArb,
  }),
  // A repeat: the same place, another latest firing.
  fc.record({ op: fc.constant('repeat' as const), key: keyArb, lastFiringAt: firedAtArb }),
  fc.record({ op: fc.constant('delete' as const), key: keyArb }),
  fc.record({ op: fc.constant('displace' as const), severity: severityArb }),
  fc.constant({ op: 'clear' as const }),
);
const entriesArb = fc.array(fc.tuple(keyArb, severityArb, firedAtArb), { maxLength: 12 });

describe('Class: FollowedAlerts', () => {
  describe('Method: displacedBy', () => {
    it('chooses what a pass over every followed alert chooses, through any follows and unfollows', () => {
      fc.assert(
        fc.property(entriesArb, fc.array(commandArb, { maxLength: 40 }), (entries, commands) => {
          const initial = entries.map(([key, s, at]) => [key, tracked(s, at)] as const);
          const followed = new FollowedAlerts(initial);
          const model = new Map(initial);
          const agree = () => {
            expect([...followed]).toEqual([...model]);
            for (const severity of [...SEVERITIES, RETIRED]) {
              expect(followed.displacedBy(severity), severity).toBe(
                displacedByScan(model, severity),
              );
            }
          };
          agree();
          for (const command of commands) {
            if (command.op === 'set') {
              const next = tracked(command.severity, command.firedAt);
              expect(followed.set(command.key, next)).toBe(followed);
              model.set(command.key, next);
            } else if (command.op === 'repeat') {
              const was = model.get(command.key);
              if (was === undefined) continue;
              const next = { ...was, lastFiringAt: command.lastFiringAt };
              followed.set(command.key, next);
              model.set(command.key, next);
            } else if (command.op === 'delete') {
              expect(followed.delete(command.key)).toBe(model.delete(command.key));
            } else if (command.op === 'displace') {
              // As `Attendant` does: the displaced alert is unfollowed.
              const key = followed.displacedBy(command.severity);
              if (key !== undefined) followed.delete(key);
              if (key !== undefined) model.delete(key);
            } else {
              followed.clear();
              model.clear();
            }
            agree();
          }
        }),
      );
    });

    it('takes the newest of the least severe alerts, and none as severe as the newcomer', () => {
      const followed = new FollowedAlerts([
        ['x', tracked('critical', 0)],
        ['a', tracked('warning', 5)],
        ['c', tracked('warning', 7)],
        ['b', tracked('warning', 7)],
        ['i', tracked('info', 1)],
      ]);
      expect(followed.displacedBy('critical')).toBe('i');
      followed.delete('i');
      expect(followed.displacedBy('critical')).toBe('c');
      expect(followed.displacedBy('warning')).toBeUndefined();
      followed.set('c', tracked('critical', 7));
      expect(followed.displacedBy('critical')).toBe('b');
    });
  });
});
