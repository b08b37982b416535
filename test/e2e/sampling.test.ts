import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { AGENTS, DIDS } from '../../simulator/scenarios/roster';
import type { Scenario } from '../../simulator/scenarios/types';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { MINUTE, rulesToldAtOnce } from './scenario';

const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const SAMPLE_MS = 15_000;
/** The run under test starts a minute into the scenario; its samples are 15 s apart. */
const RUN_START = T0 + MINUTE;
/** Rings 10 s after the run starts, for 10 s: only the run's second sample (at +15 s) sees it. */
const CALL_START_MS = MINUTE + 10_000;
const CALL_RING_MS = 10_000;

const [agent] = AGENTS;
const [did] = DIDS;
if (agent === undefined || did === undefined) throw new Error('the simulator roster is empty');

/** One inbound call ringing unanswered for ten seconds, nothing else. */
const briefCall: Scenario = {
  name: 'brief-call',
  description: 'one call ringing for ten seconds between two samples',
  windowMs: 60 * MINUTE,
  maxCallMs: MINUTE,
  events(index) {
    if (index !== 0) return { calls: [], payments: [] };
    return {
      calls: [
        {
          serial: 1,
          startMs: CALL_START_MS,
          ringMs: CALL_RING_MS,
          direction: 1,
          did,
          caller: '+919000000001',
          agents: [agent],
        },
      ],
      payments: [],
    };
  },
};

const clock = new ManualClock(T0);
let harness: RuntimeHarness;

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'sampling',
    scenario: briefCall,
    clock,
    rules: (baseUrl, tokenParameter) => rulesToldAtOnce(baseUrl, tokenParameter, 4),
  });
});

afterAll(async () => {
  await harness?.close();
});

describe('Deployed runtime on moto: sub-minute sampling', () => {
  it('sees a call ringing only between two samples and fires on it inside the one invocation', async () => {
    // The handler's clock is the simulator's: a sample's sleep moves both, so no real time passes.
    const slept: number[] = [];
    const handler = createPollerHandler('live_calls', {
      logger: silentLogger(),
      now: () => clock.now(),
      sleep: async (ms) => {
        slept.push(ms);
        clock.advance(ms);
      },
    });

    clock.set(RUN_START - MINUTE);
    expect(await invoke(handler)).toMatchObject({ samples: 4, records: 0, sent: 0 });
    expect(clock.now()).toBe(RUN_START - MINUTE + 3 * SAMPLE_MS);

    clock.set(RUN_START);
    const before = harness.simulator.requests.length;
    const summary = await invoke(handler);

    // One record in four samples: the run's first sample, where a once-a-minute poll would
    // look, saw nothing ringing.

    expect(summary).toMatchObject({
      samples: 4,
      samplesPlanned: 4,
      records: 1,
      failures: 0,
      sent: 0,
      owedLeft: 2,
    });
    expect(slept).toEqual([SAMPLE_MS, SAMPLE_MS, SAMPLE_MS, SAMPLE_MS, SAMPLE_MS, SAMPLE_MS]);
    const polls = harness.simulator.requests.slice(before);
    expect(polls.map((r) => [r.path, r.status])).toEqual(
      Array.from({ length: 4 }, () => ['/v1/live_calls', 200]),
    );
    // The samples' commits reach the notifier on the table's stream: the call fired at the
    // second sample and resolved at the third, and the on-call is told both times.
    await harness.streamToNotifier(
      createNotifierHandler({ logger: silentLogger(), now: () => clock.now() }),
    );
    const messages = (await harness.stack.drain('oncall')) as unknown as Message[];
    const lines = messages.flatMap((message) => message.alerts);
    expect(lines).toEqual([
      expect.objectContaining({
        rule: 'any-ringing',
        status: 'resolved',
        firedAt: new Date(RUN_START + SAMPLE_MS).toISOString(),
        at: new Date(RUN_START + 2 * SAMPLE_MS).toISOString(),
      }),
    ]);

    // Nor would the next minute's poll: the call is over.
    clock.set(RUN_START + MINUTE);
    expect(await invoke(handler)).toMatchObject({ samples: 4, records: 0, owedLeft: 0 });
    expect(
      await harness.streamToNotifier(
        createNotifierHandler({ logger: silentLogger(), now: () => clock.now() }),
      ),
    ).toEqual([]);
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });
});
