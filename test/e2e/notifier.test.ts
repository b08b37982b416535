import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import type { Message } from '../../shared/notifier/types';
import { zonedTimeToEpoch } from '../../shared/time/zone';
import { ManualClock } from '../../simulator/clock';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { DID_A, e2eScenario, MINUTE, rulesFile } from './scenario';

/** Saturday 21 November 2026, 10:00 in India. */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

const brief = (bodies: Record<string, unknown>[]) =>
  (bodies as unknown as Message[]).map(
    (m) => `${m.kind}: ${m.alerts.map((a) => `${a.rule}:${a.status}`).join(', ')}`,
  );

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2n',
    scenario: e2eScenario,
    clock,
    // Finance keeps Monday office hours: Saturday's payment waits for Monday's digest.
    rules: (baseUrl, tokenParameter) =>
      rulesFile(baseUrl, tokenParameter).replace(
        'finance: { email: [finance@example.com] }',
        'finance: { email: [finance@example.com], active: { days: [mon], from: "09:00", to: "18:00" } }',
      ),
  });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: each test continues where the previous one left off.
describe('Deployed notifier on moto: pollers commit events, the stream and the clock invoke the notifier', () => {
  const logger = silentLogger();
  const liveCalls = createPollerHandler('live_calls', { logger });
  const payments = createPollerHandler('payments', { logger });
  const notifier = createNotifierHandler({ logger });

  it('turns the pollers\u2019 events into messages on each channel, honouring filter policies', async () => {
    at(T0 + 30_000);
    await invoke(liveCalls);
    // The poller only committed: nothing is sent until its commit, on the stream, invokes the notifier.
    expect(await harness.stack.drain('oncall')).toEqual([]);
    const [round] = await harness.streamToNotifier(notifier);
    expect(round).toMatchObject({ taken: 2 });
    expect(brief(await harness.stack.drain('oncall')).sort()).toEqual([
      'alerts: any-ringing:firing',
      'alerts: too-many-ringing:firing',
    ]);
    const managers = (await harness.stack.drain('managers')) as unknown as Message[];
    expect(managers.map((m) => m.alerts[0]?.key)).toEqual([`too-many-ringing{did=${DID_A}}`]);
    await invoke(payments);
    expect(await harness.streamToNotifier(notifier)).toEqual([
      expect.objectContaining({ taken: 1, decided: [] }),
    ]);
    // Saturday: deferred, not dropped.
    expect(await harness.stack.drain('finance')).toEqual([]);
  });

  it('is not invoked by its own writes: its state, its messages, the events it marks sent', async () => {
    // The rounds above wrote the notifier's partition and deleted the pollers' owed items.
    expect(await harness.tableKeys('live_calls')).toEqual(['state']);
    expect(await harness.streamToNotifier(notifier)).toEqual([]);
  });

  it('holds what follows within the interval, and the notifier alone sends it when due', async () => {
    at(T0 + 4 * MINUTE);
    await invoke(liveCalls);
    expect(await harness.streamToNotifier(notifier)).toEqual([
      expect.objectContaining({ taken: 2, decided: [] }),
    ]);
    expect(await harness.stack.drain('oncall')).toEqual([]);
    at(T0 + 5 * MINUTE + 30_000);
    const result = await invoke<NotifierSummary>(notifier);
    // Four: managers' copy of the warning is published too, and its filter policy drops it.
    expect(result.published).toHaveLength(4);
    expect(brief(await harness.stack.drain('oncall')).sort()).toEqual([
      'alerts: any-ringing:resolved',
      'alerts: too-many-ringing:resolved',
    ]);
    expect(brief(await harness.stack.drain('managers'))).toEqual([
      'alerts: too-many-ringing:resolved',
    ]);
  });

  it('re-sends a message with the same id after a crash between commit and publish', async () => {
    const crashing = createNotifierHandler({
      logger,
      wire: (wiring) => ({
        ...wiring,
        publisher: {
          publish: () => Promise.reject(new Error('the function was killed before publishing')),
        },
      }),
    });
    // The burst on DID B rings from 5 min. The resolutions told at 5:30 left its alerts' groups
    // with nothing firing, so they start afresh (contract 6.1 rule 2): decided at once, by a
    // notifier killed before publishing.
    at(T0 + 6 * MINUTE);
    await invoke(liveCalls);
    const [crashed] = await harness.streamToNotifier(crashing);
    expect(crashed?.published).toEqual([]);
    expect(crashed?.unpublished.length).toBeGreaterThan(0);
    expect(await harness.stack.drain('oncall')).toEqual([]);
    // Within the grace period the crashed step might still be publishing: left alone.
    at(T0 + 7 * MINUTE);
    expect((await invoke<NotifierSummary>(notifier)).published).toEqual([]);
    at(T0 + 9 * MINUTE);
    expect([...(await invoke<NotifierSummary>(notifier)).published].sort()).toEqual(
      [...(crashed?.unpublished ?? [])].sort(),
    );
    const sent = [
      ...(await harness.stack.drain('oncall')),
      ...(await harness.stack.drain('managers')),
    ] as unknown as Message[];
    // Each once, with the crashed step's ids; managers' copy of the warning is filtered out.
    const ids = sent.map((m) => m.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids.filter((id) => crashed?.unpublished.includes(id))).toEqual(ids);
    const oncall = sent.filter((m) => m.channel === 'oncall');
    expect(brief(oncall as unknown as Record<string, unknown>[]).sort()).toEqual([
      'alerts: any-ringing:firing',
      'alerts: too-many-ringing:firing',
    ]);
  });

  it('sends the deferred digest at the start of active hours, once, from two overlapping runs', async () => {
    at(zonedTimeToEpoch('Asia/Kolkata', 2026, 11, 23, 9, 0, 30));
    const [one, two] = await Promise.all([
      invoke<NotifierSummary>(notifier),
      invoke<NotifierSummary>(notifier),
    ]);
    const decided = [...(one?.decided ?? []), ...(two?.decided ?? [])];
    expect(decided.map((item) => item.kind)).toEqual(['digest']);
    const finance = (await harness.stack.drain('finance')) as unknown as Message[];
    expect(finance.map((m) => `${m.kind}: ${m.alerts.map((a) => a.rule).join(',')}`)).toEqual([
      'digest: big-payment',
    ]);
  });
});
