import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Candidate, capSms } from '../../shared/notifier/cap';
import { compose } from '../../shared/notifier/compose';
import type { HeldEvent } from '../../shared/notifier/types';
import type { ChannelConfig } from '../../shared/types/config';
import { config, T0 } from '../engine/fixtures';

const CONFIG = config([]);
const FIXTURE = CONFIG.channels.oncall;
if (FIXTURE === undefined) throw new Error('fixture has oncall');
/** One SMS an hour, spent a minute ago: only a page passes. */
const ONCALL: ChannelConfig = { ...FIXTURE, smsPerHour: 1 };
const SPENT = [T0 - 60_000];

/**
 * An event of call `call`'s firing number `firing` (1 at T0-20m, 2 at T0-10m), `after` seconds
 * (under 300) into it: a firing's events in its first five minutes, its end in the next five.
 */
function event(
  call: string,
  firing: number,
  status: HeldEvent['status'],
  after: number,
): HeldEvent {
  const firedAt = T0 - (3 - firing) * 600_000;
  const at = firedAt + (status === 'resolved' ? 300 + after : after) * 1_000;
  return {
    id: `ringing{call_id=${call}}|${status}|${firedAt}|${at}`,
    at,
    source: 'live_calls',
    rule: 'ringing',
    key: `ringing{call_id=${call}}`,
    status,
    severity: 'warning',
    labels: { call_id: call },
    value: null,
    firedAt,
    sms: `${status.toUpperCase()} ringing: call ${call}`,
    subject: `[WARNING] ${status.toUpperCase()} ringing: call ${call}`,
  };
}

type Kind = 'page' | 'held' | 'email';

function candidate(kind: Kind, events: readonly HeldEvent[]): Candidate {
  const [part] = compose({
    config: CONFIG,
    channel: ONCALL,
    reason: 'alerts',
    groupKey: 'g',
    events,
    nowMs: T0,
    withSms: kind !== 'email',
  });
  if (part === undefined) throw new Error('compose makes a part');
  return { part, criticalFirst: kind === 'page', events };
}

/** What the cap holds after a step of `decided`, as the events' ids in order. */
function heldAfter(before: readonly HeldEvent[], decided: readonly Candidate[]): string[] {
  const smsHeld = [...before];
  capSms(ONCALL, [...SPENT], smsHeld, decided, T0);
  return smsHeld.map((held) => held.id);
}

describe('Function: capSms', () => {
  it('owes nothing of a firing a page told, whichever comes first, the page or an email of its end', () => {
    const firing = event('c1', 1, 'firing', 0);
    const page = candidate('page', [event('c1', 1, 'firing', 60)]);
    const email = candidate('email', [event('c1', 1, 'resolved', 10)]);
    expect(heldAfter([firing], [page, email])).toEqual([]);
    expect(heldAfter([firing], [email, page])).toEqual([]);
  });

  it('holds the end of a firing a page told firing only, whichever comes first', () => {
    const page = candidate('page', [event('c1', 1, 'firing', 60)]);
    const end = event('c1', 1, 'resolved', 10);
    const held = candidate('held', [end]);
    expect(heldAfter([], [page, held])).toEqual([end.id]);
    expect(heldAfter([], [held, page])).toEqual([end.id]);
  });

  it("keeps what it holds in the step's order: an older email of a held end goes before it", () => {
    // A gone channel's handover (email only: below minSeverity) of c1 firing comes first in the
    // step, then the group's message of c1's end, held: the digest must tell the end.
    const handover = candidate('email', [event('c1', 1, 'firing', 60)]);
    const end = event('c1', 1, 'resolved', 10);
    const group = candidate('held', [end, event('c2', 2, 'firing', 0)]);
    const held = heldAfter([], [handover, group]).filter((id) =>
      id.startsWith('ringing{call_id=c1}'),
    );
    expect(held.at(-1)).toBe(end.id);
  });

  // Which events it holds; their order follows the step's (older news first), and which of
  // two messages alike takes the last room is a boundary: the hour here is spent.
  it("holds the same events whatever the order of a step's messages", () => {
    const anEvent = fc
      .record({
        call: fc.constantFrom('c1', 'c2'),
        firing: fc.constantFrom(1, 2),
        status: fc.constantFrom<HeldEvent['status']>('firing', 'resolved'),
        after: fc.integer({ min: 0, max: 290 }),
      })
      .map(({ call, firing, status, after }) => event(call, firing, status, after));
    const aMessage = fc.record({
      kind: fc.constantFrom<Kind>('page', 'held', 'email'),
      events: fc.array(anEvent, { minLength: 1, maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(anEvent, { maxLength: 4 }),
        fc.array(aMessage, { minLength: 2, maxLength: 4 }),
        fc.infiniteStream(fc.nat()),
        (before, messages, draws) => {
          const decided = messages.map(({ kind, events }) => candidate(kind, events));
          const shuffled = [...decided];
          for (let index = shuffled.length - 1; index > 0; index -= 1) {
            const other = (draws.next().value as number) % (index + 1);
            [shuffled[index], shuffled[other]] = [
              shuffled[other] as Candidate,
              shuffled[index] as Candidate,
            ];
          }
          const held = heldAfter(before, decided).sort();
          expect(heldAfter(before, shuffled).sort()).toEqual(held);
        },
      ),
      { seed: 20261129, numRuns: 500 },
    );
  });
});
