import { describe, expect, it } from 'vitest';
import { PrintingPublisher, prettyMessage } from '../../../cli/lib/format';
import type { Message, MessageAlert } from '../../../shared/notifier/types';

const ZONE = 'Asia/Kolkata';

const alert = (status: MessageAlert['status']): MessageAlert => ({
  rule: 'too-many-ringing',
  key: 'too-many-ringing{did=8000000001}',
  status,
  severity: 'critical',
  labels: { did: '8000000001' },
  value: 6,
  at: '2026-11-21T04:35:00.000Z',
});

/** A message as the notifier makes one (only what the printer reads differs between tests). */
function message(overrides: Partial<Message>): Message {
  return {
    at: '2026-11-21T04:35:00.000Z',
    channel: 'oncall',
    kind: 'alerts',
    alerts: [alert('firing')],
    sms: 'FIRING too-many-ringing: 6 calls ringing on 8000000001',
    subject: '[CRITICAL] FIRING too-many-ringing: 6 calls ringing on 8000000001',
    text: 'body',
    id: 'm1',
    ...overrides,
  };
}

describe('Function: prettyMessage', () => {
  it('tells the time in the zone, the channel, the kind and count, the SMS and the email subject', () => {
    expect(prettyMessage(message({}), ZONE, false)).toBe(
      [
        '2026-11-21 10:05:00 IST  oncall  alerts (1 alert)',
        '  SMS    FIRING too-many-ringing: 6 calls ringing on 8000000001',
        '  email  [CRITICAL] FIRING too-many-ringing: 6 calls ringing on 8000000001',
      ].join('\n'),
    );
  });

  it('counts several alerts and says when a message goes by email only', () => {
    const printed = prettyMessage(
      message({ alerts: [alert('firing'), alert('resolved')], sms: null, kind: 'digest' }),
      ZONE,
      false,
    );
    expect(printed.split('\n').slice(0, 2)).toEqual([
      '2026-11-21 10:05:00 IST  oncall  digest (2 alerts)',
      '  SMS    (none: email only)',
    ]);
  });

  it("names the person on call a rotation channel's message reaches", () => {
    expect(prettyMessage(message({ oncall: 'asha' }), ZONE, false).split('\n')[0]).toBe(
      '2026-11-21 10:05:00 IST  oncall  alerts (1 alert)  on call: asha',
    );
  });

  it('heads a handoff with who takes the pager from whom and what is firing', () => {
    const handoff = message({
      kind: 'handoff',
      oncall: 'ravi',
      sms: 'ravi: on call for oncall until Sun 22 Nov 09:00; 1 alert firing: too-many-ringing 8000000001 CRITICAL',
    });
    expect(prettyMessage(handoff, ZONE, false, 'asha').split('\n')).toEqual([
      '2026-11-21 10:05:00 IST  oncall  handoff: ravi takes over from asha (1 alert firing)',
      '  SMS    ravi: on call for oncall until Sun 22 Nov 09:00; 1 alert firing: too-many-ringing 8000000001 CRITICAL',
      '  email  [CRITICAL] FIRING too-many-ringing: 6 calls ringing on 8000000001',
    ]);
    const first = message({ kind: 'handoff', oncall: 'asha', alerts: [] });
    expect(prettyMessage(first, ZONE, false).split('\n')[0]).toBe(
      '2026-11-21 10:05:00 IST  oncall  handoff: asha is on call (nothing firing)',
    );
  });

  it('paints the SMS red while an alert fires and green once all resolved, only when asked', () => {
    const firing = prettyMessage(message({}), ZONE, true);
    expect(firing).toContain('  SMS    \u001b[31mFIRING too-many-ringing');
    const resolved = prettyMessage(message({ alerts: [alert('resolved')] }), ZONE, true);
    expect(resolved).toContain('  SMS    \u001b[32m');
    expect(prettyMessage(message({}), ZONE, false)).not.toContain('\u001b[');
  });
});

describe('Class: PrintingPublisher', () => {
  it('takes an untold resolution (resolved: false) without printing it, and prints the rest', async () => {
    const lines: string[] = [];
    const printer = new PrintingPublisher((text) => lines.push(text), {
      json: true,
      zone: ZONE,
      colour: false,
    });
    const base = {
      at: '2026-11-21T04:35:00.000Z',
      source: 'live_calls' as const,
      rule: 'ringing',
      severity: 'warning' as const,
      channels: ['oncall'],
      key: 'ringing{call_id=c1}',
      labels: { call_id: 'c1' },
      sms: 'sms',
      subject: 'subject',
      text: 'text',
    };
    const fired = { ...base, id: 'fired', status: 'firing' as const };
    const ended = { ...base, id: 'ended', status: 'resolved' as const, untold: true as const };
    const outcome = await printer.publish([fired, ended]);
    expect(outcome.delivered).toEqual(['fired', 'ended']);
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(['fired']);
  });
});
