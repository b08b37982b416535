import { describe, expect, it } from 'vitest';
import { capSms } from '../../shared/notifier/cap';
import { type Direct, directCandidates } from '../../shared/notifier/direct';
import type { HeldEvent } from '../../shared/notifier/types';
import { config, T0 } from '../engine/fixtures';

const CONFIG = config([]);
const ONCALL = CONFIG.channels.oncall;
const FIRED = T0 - 60_000;

function ringing(index: number, status: HeldEvent['status'] = 'firing'): HeldEvent {
  const id = `c${String(index).padStart(5, '0')}`;
  return {
    id: `ringing{call_id=${id}}|${status}|x`,
    at: status === 'firing' ? FIRED : T0 - 30_000,
    source: 'live_calls',
    rule: 'ringing',
    key: `ringing{call_id=${id}}`,
    status,
    severity: 'critical',
    labels: { call_id: id },
    value: null,
    firedAt: FIRED,
    escalation: true,
    sms: `FIRING ringing: call ${id}`,
    subject: `[CRITICAL] FIRING ringing: call ${id}`,
  };
}

/** A gone channel's handover of 10,000 kept escalations: too big for one SNS message. */
function handover(): Direct {
  return {
    reason: 'handover',
    groupKey: 'handover',
    title: 'Channel finance no longer exists',
    events: Array.from({ length: 10_000 }, (_, index) => ringing(index)),
    delivers: [],
  };
}

describe('Function: directCandidates', () => {
  it('leaves the events of a split message to its first part, whose SMS tells them', () => {
    if (ONCALL === undefined) throw new Error('fixture has oncall');
    const candidates = directCandidates(CONFIG, ONCALL, T0, handover(), () => true);
    expect(candidates.length).toBeGreaterThan(1);
    expect(candidates[0]?.part.message.sms).not.toBeNull();
    expect(candidates[0]?.events).toHaveLength(10_000);
    for (const candidate of candidates.slice(1)) {
      expect(candidate.part.message.sms).toBeNull();
      expect(candidate.events).toEqual([]);
    }
  });

  it('keeps an end the cap held owed after a split page that told its firing', () => {
    if (ONCALL === undefined) throw new Error('fixture has oncall');
    const held = [ringing(0, 'resolved')];
    const candidates = directCandidates(CONFIG, ONCALL, T0, handover(), () => true);
    const sentAt = Array.from({ length: ONCALL.smsPerHour }, () => T0 - 60_000);
    const messages = capSms(ONCALL, sentAt, held, candidates, T0);
    expect(messages[0]?.message.sms).not.toBeNull();
    // The page told c00000 firing, not its end: the digest still owes the end, and only it
    // (the email's later parts do not turn it back into a firing).
    expect(held.map((event) => `${event.key} ${event.status}`)).toEqual([
      'ringing{call_id=c00000} resolved',
    ]);
  });
});
