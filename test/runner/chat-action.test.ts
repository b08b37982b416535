import { describe, expect, it } from 'vitest';
import { decide } from '../../shared/notifier/decide';
import { MemoryNotifierStore } from '../../shared/ports/memory';
import { chatAction } from '../../shared/runner/chat-action';
import { config, MINUTE, T0 } from '../engine/fixtures';
import { ringingEvent } from '../notifier/events';

const target = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A store whose state follows one firing `ringing` alert that repeats. */
async function storeWithFiring(): Promise<MemoryNotifierStore> {
  const repeating = config([{ name: 'ringing', repeatMs: 5 * MINUTE, notify: ['oncall'] }]);
  const { state } = decide(repeating, undefined, [ringingEvent('c1', T0)], T0);
  const store = new MemoryNotifierStore();
  const { revision } = await store.loadNotifier();
  await store.commitNotifier(revision, { state, consumed: {}, owed: [] });
  return store;
}

describe('Function: chatAction', () => {
  it('acknowledges the alert its target names, recorded as pressed in the channel, via chat', async () => {
    const store = await storeWithFiring();
    const answer = await chatAction(
      store,
      { ack: target({ key: 'ringing{call_id=c1}', channel: 'oncall' }) },
      T0 + MINUTE,
    );
    expect(answer).toEqual({ ok: true, text: expect.stringContaining('ringing{call_id=c1}') });
    const { state } = await store.loadNotifier();
    expect(state?.alerts?.['ringing{call_id=c1}']?.ack).toEqual({
      by: 'chat button in oncall',
      at: T0 + MINUTE,
      via: 'chat',
    });
  });

  it('answers, changing nothing, when the alert is no longer followed', async () => {
    const store = await storeWithFiring();
    const before = await store.loadNotifier();
    const answer = await chatAction(
      store,
      { ack: target({ key: 'ringing{call_id=gone}', channel: 'oncall' }) },
      T0,
    );
    expect(answer.ok).toBe(false);
    expect(answer.text).toContain('nothing to acknowledge');
    expect((await store.loadNotifier()).revision).toBe(before.revision);
  });

  it('refuses a press whose variables the service left unfilled, or the wrong kind of target', async () => {
    const store = await storeWithFiring();
    for (const input of [
      { ack: '$ackTarget' },
      { silence: target({ key: 'ringing{call_id=c1}' }) },
      { ack: target({ matchers: { rule: 'ringing' } }) },
      { drop: target({ key: 'x' }) },
      { ack: 7 },
      'not an object',
    ]) {
      expect((await chatAction(store, input, T0)).ok).toBe(false);
    }
  });
});
