import { describe, expect, it } from 'vitest';
import { evaluate } from '../../shared/engine/evaluate';
import type { SourceState } from '../../shared/engine/types';
import type { PollResult } from '../../shared/records/types';
import type { Config, SourceName } from '../../shared/types/config';
import { call, config, MINUTE, ok, payment, T0 } from './fixtures';

/** One evaluation of a timing table: what the poll shows, and what must follow. */
interface Row {
  readonly minute: number;
  readonly poll: PollResult;
  /** The instance's state after the evaluation; undefined: no instance. */
  readonly state: 'pending' | 'firing' | undefined;
  readonly notify?: 'firing' | 'resolved';
}

function runTable(cfg: Config, source: SourceName, key: string, rows: readonly Row[]): void {
  let previous: SourceState | undefined;
  for (const row of rows) {
    const { state, notifications } = evaluate(
      cfg,
      source,
      row.poll,
      T0 + row.minute * MINUTE,
      previous,
    );
    previous = state;
    expect(state.alerts[key]?.state, `state at minute ${row.minute}`).toBe(row.state);
    expect(
      notifications.map((n) => n.status),
      `notifications at minute ${row.minute}`,
    ).toEqual(row.notify === undefined ? [] : [row.notify]);
  }
}

/** A live call whose `call_time` is `seconds` (the sample value of prometheus' series). */
function sample(seconds: number): PollResult {
  return ok(call('a', { call_time: seconds }));
}

/** prometheus' `http_requests > 50` with `for: 1m`, `keep_firing_for: 1m`, evaluated every minute. */
const HIGH = config([
  { name: 'high', where: { call_time: '> 50s' }, forMs: MINUTE, keepFiringMs: MINUTE },
]);

describe('Rule engine: keepFiring timing (prometheus keep_firing_for)', () => {
  it('keeps firing at the first false evaluation and resolves keepFiring after it (TestKeepFiringFor)', () => {
    // prometheus' series `75 85 70 70 10x5`: pending, firing x3, kept firing, then gone.
    runTable(HIGH, 'live_calls', 'high{call_id=a}', [
      { minute: 0, poll: sample(75), state: 'pending' },
      { minute: 1, poll: sample(85), state: 'firing', notify: 'firing' },
      { minute: 2, poll: sample(70), state: 'firing' },
      { minute: 3, poll: sample(70), state: 'firing' },
      { minute: 4, poll: sample(10), state: 'firing' },
      { minute: 5, poll: sample(10), state: undefined, notify: 'resolved' },
      { minute: 6, poll: sample(10), state: undefined },
    ]);
  });

  it('drops a pending instance at once whatever keepFiring says (TestPendingAndKeepFiringFor)', () => {
    runTable(HIGH, 'live_calls', 'high{call_id=a}', [
      { minute: 0, poll: sample(75), state: 'pending' },
      { minute: 1, poll: sample(10), state: undefined },
      { minute: 2, poll: sample(10), state: undefined },
    ]);
  });

  it('measures a second dip afresh once the condition held again in between', () => {
    const cfg = config([{ name: 'k', where: { call_time: '> 50s' }, keepFiringMs: 2 * MINUTE }]);
    runTable(cfg, 'live_calls', 'k{call_id=a}', [
      { minute: 0, poll: sample(75), state: 'firing', notify: 'firing' },
      { minute: 1, poll: sample(10), state: 'firing' },
      { minute: 2, poll: sample(10), state: 'firing' },
      { minute: 3, poll: sample(75), state: 'firing' },
      { minute: 4, poll: sample(10), state: 'firing' },
      { minute: 5, poll: ok(), state: 'firing' },
      { minute: 6, poll: ok(), state: undefined, notify: 'resolved' },
    ]);
  });

  it('holds a payment seen settled for keepFiring, then resolves it while absent', () => {
    const cfg = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending' }, keepFiringMs: 5 * MINUTE },
    ]);
    const p = (status: string) => ok(payment('p1', { status }, T0));
    runTable(cfg, 'payments', 'stuck{id=p1}', [
      { minute: 0, poll: p('pending'), state: 'firing', notify: 'firing' },
      { minute: 5, poll: p('success'), state: 'firing' },
      { minute: 10, poll: ok(), state: undefined, notify: 'resolved' },
    ]);
  });

  it('keeps an absent payment never seen settled firing, keepFiring or not', () => {
    const cfg = config([
      { name: 'stuck', source: 'payments', where: { status: 'pending' }, keepFiringMs: 5 * MINUTE },
    ]);
    runTable(cfg, 'payments', 'stuck{id=p1}', [
      {
        minute: 0,
        poll: ok(payment('p1', { status: 'pending' }, T0)),
        state: 'firing',
        notify: 'firing',
      },
      { minute: 5, poll: ok(), state: 'firing' },
      { minute: 30, poll: ok(), state: 'firing' },
    ]);
  });
});
