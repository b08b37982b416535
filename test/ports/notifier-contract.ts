import { describe, expect, it } from 'vitest';
import type { Message, NotifierState } from '../../shared/notifier/types';
import { NotifierConflictError } from '../../shared/ports/errors';
import type { NotifierStore } from '../../shared/ports/notifier';

const STATE: NotifierState = {
  version: 1,
  channels: {
    oncall: {
      groups: {
        '["ringing"]': { labels: { rule: 'ringing' }, lastSentAt: 1, held: [] },
      },
      smsSentAt: [1],
      smsHeld: [],
      deferred: [],
    },
  },
};

export function sampleMessage(id: string): Message {
  return {
    at: '2026-11-21T04:30:00.000Z',
    channel: 'oncall',
    kind: 'alerts',
    alerts: [
      {
        rule: 'ringing',
        key: 'ringing{call_id=c1}',
        status: 'firing',
        severity: 'warning',
        labels: { call_id: 'c1' },
        value: null,
        at: '2026-11-21T04:30:00.000Z',
      },
    ],
    sms: 'FIRING ringing: call c1',
    subject: '[WARNING] FIRING ringing: call c1',
    text: 'the story',
    id,
  };
}

/** What every `NotifierStore` adapter promises (memory, file; DynamoDB on moto in e2e). */
export function describeNotifierStoreContract(name: string, make: () => Promise<NotifierStore>) {
  describe(`Contract: NotifierStore (${name})`, () => {
    it('starts empty at revision 0', async () => {
      const store = await make();
      expect(await store.loadNotifier()).toEqual({
        state: undefined,
        revision: 0,
        consumed: {},
        owed: [],
      });
    });

    it('commits state, consumed ids and owed messages, and loads them back', async () => {
      const store = await make();
      const revision = await store.commitNotifier(0, {
        state: STATE,
        consumed: { e1: 5 },
        owed: [sampleMessage('m1')],
      });
      expect(revision).toBe(1);
      expect(await store.loadNotifier()).toEqual({
        state: STATE,
        revision: 1,
        consumed: { e1: 5 },
        owed: [sampleMessage('m1')],
      });
    });

    it('refuses a commit on a stale revision and keeps what is stored', async () => {
      const store = await make();
      await store.commitNotifier(0, { state: STATE, consumed: {}, owed: [sampleMessage('m1')] });
      await expect(
        store.commitNotifier(0, { state: STATE, consumed: {}, owed: [sampleMessage('m2')] }),
      ).rejects.toBeInstanceOf(NotifierConflictError);
      expect((await store.loadNotifier()).owed.map((m) => m.id)).toEqual(['m1']);
    });

    it('adds owed messages across commits and forgets the sent ones, idempotently', async () => {
      const store = await make();
      await store.commitNotifier(0, { state: STATE, consumed: {}, owed: [sampleMessage('m1')] });
      await store.commitNotifier(1, { state: STATE, consumed: {}, owed: [sampleMessage('m2')] });
      await store.markMessagesSent(['m1']);
      await store.markMessagesSent(['m1']);
      expect((await store.loadNotifier()).owed.map((m) => m.id)).toEqual(['m2']);
    });
  });
}
