import { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it, vi } from 'vitest';
import { recordNotifierRound, UNDELIVERABLE_LOG_MESSAGE } from '../../functions/notifier-metrics';
import type { Notification } from '../../shared/engine/types';
import { MAX_FOLLOWED_ALERTS } from '../../shared/notifier/follow';
import type { NotifierRoundResult } from '../../shared/runner/notifier-round';

const QUIET: NotifierRoundResult = {
  decided: [],
  published: [],
  unpublished: [],
  undeliverable: [],
  taken: 0,
  takenEvents: [],
  skipped: 0,
  nextDueAtMs: undefined,
  heldDueAtMs: undefined,
  released: false,
  unfollowed: [],
  unanswered: 0,
  markSentFailed: [],
  left: 0,
  steps: 1,
};

function event(source: Notification['source'], rule: string, status: Notification['status']) {
  return { source, rule, status, id: `${rule}|${status}|${Math.random()}` } as Notification;
}

describe('Function: recordNotifierRound', () => {
  it('logs a message with no topic whole as an error and counts it as MessagesUndeliverable', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const error = vi.spyOn(logger, 'error');
    const metrics = { addMetric: vi.fn() };
    const message = {
      at: '2026-11-21T04:31:00.000Z',
      channel: 'finance',
      kind: 'digest',
      alerts: [],
      sms: null,
      subject: 'Digest',
      text: 'what finance was told',
      id: 'm1',
    } as const;
    const summary = recordNotifierRound(
      { ...QUIET, undeliverable: [message] },
      logger,
      metrics as unknown as Metrics,
    );
    expect(error).toHaveBeenCalledWith(
      UNDELIVERABLE_LOG_MESSAGE,
      expect.objectContaining({ channel: 'finance', messageId: 'm1', kind: 'digest' }),
    );
    expect(JSON.stringify(error.mock.calls[0]?.[1])).toContain('what finance was told');
    expect(metrics.addMetric).toHaveBeenCalledWith('MessagesUndeliverable', 'Count', 1);
    expect(summary.undeliverable).toEqual(['m1']);
  });

  it('warns when the step released what it kept because the state was too large to store', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    recordNotifierRound({ ...QUIET, released: true }, logger);
    expect(warn).toHaveBeenCalledWith(
      'notifier state too large to keep: everything kept was told now',
      { decided: 0 },
    );
  });

  it('counts the alerts not followed on the round line and warns with the limit and examples', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    const info = vi.spyOn(logger, 'info');
    const unfollowed = [
      { key: 'ringing{call_id=a}', rule: 'ringing', severity: 'warning', reason: 'displaced' },
      { key: 'ringing{call_id=b}', rule: 'ringing', severity: 'warning', reason: 'full' },
      { key: 'ringing{call_id=c}', rule: 'ringing', severity: 'warning', reason: 'full' },
    ] as const;
    const summary = recordNotifierRound({ ...QUIET, unfollowed }, logger);
    expect(info).toHaveBeenCalledWith(
      'notifier round',
      expect.objectContaining({ alertsNotFollowed: 3, messagesSent: 0 }),
    );
    expect(warn).toHaveBeenCalledWith(
      'alerts not followed for escalation or acknowledgement: too many are firing',
      {
        limit: MAX_FOLLOWED_ALERTS,
        notFollowed: 2,
        displaced: 1,
        examples: unfollowed.map((item) => item.key),
      },
    );
    expect(summary?.unfollowed).toBe(3);
  });

  it('counts the calls to ack.did not answered (a confirmation less than 10 minutes before) on the round line', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const info = vi.spyOn(logger, 'info');
    recordNotifierRound({ ...QUIET, taken: 9, unanswered: 9 }, logger);
    expect(info).toHaveBeenCalledWith(
      'notifier round',
      expect.objectContaining({ ackCallsUnanswered: 9 }),
    );
  });

  it('does not warn on an ordinary round', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    recordNotifierRound(QUIET, logger);
    expect(warn).not.toHaveBeenCalled();
  });

  it('warns, naming the source, when events taken in could not be marked sent', () => {
    const logger = new Logger({ logLevel: 'SILENT' });
    const warn = vi.spyOn(logger, 'warn');
    const summary = recordNotifierRound(
      {
        ...QUIET,
        markSentFailed: [{ source: 'payments', events: 3, error: new Error('throttled') }],
      },
      logger,
    );
    expect(summary.markSentFailed).toEqual(['payments']);
    expect(warn).toHaveBeenCalledWith(
      'alert events taken in could not be marked sent; the next round skips them',
      { source: 'payments', events: 3, error: 'throttled' },
    );
  });

  it('logs the events taken in, one line per source, rule and status (the "Notifications sent" table)', () => {
    const takenEvents = [
      event('live_calls', 'ringing', 'firing'),
      event('live_calls', 'ringing', 'firing'),
      event('live_calls', 'ringing', 'resolved'),
      event('payments', 'large', 'firing'),
    ];
    const logger = new Logger({ logLevel: 'SILENT' });
    const info = vi.spyOn(logger, 'info');
    recordNotifierRound({ ...QUIET, taken: takenEvents.length, takenEvents }, logger);
    const sent = info.mock.calls
      .filter(([message]) => message === 'alert events taken in')
      .map(([, fields]) => {
        const { source, rule, status, events } = fields as Record<string, unknown>;
        return `${source} ${rule} ${status} ${events}`;
      })
      .sort();
    expect(sent).toEqual([
      'live_calls ringing firing 2',
      'live_calls ringing resolved 1',
      'payments large firing 1',
    ]);
  });

  it('returns a summary of the messages by id, not the messages themselves', () => {
    const summary = recordNotifierRound(
      {
        ...QUIET,
        decided: [
          {
            message: { id: 'm1', channel: 'oncall', kind: 'alerts', alerts: [{}, {}] },
            smsHeld: false,
            delivers: [],
          } as unknown as NotifierRoundResult['decided'][number],
        ],
        published: ['m1'],
        nextDueAtMs: Date.parse('2026-11-21T04:35:00Z'),
      },
      new Logger({ logLevel: 'SILENT' }),
    );
    expect(summary).toEqual({
      taken: 0,
      skipped: 0,
      decided: [{ id: 'm1', channel: 'oncall', kind: 'alerts', alerts: 2, smsHeld: false }],
      published: ['m1'],
      unpublished: [],
      released: false,
      markSentFailed: [],
      left: 0,
      steps: 1,
      nextDueAt: '2026-11-21T04:35:00.000Z',
    });
  });
});
