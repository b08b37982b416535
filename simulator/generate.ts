import { type RawRecord, renderCall, renderPayment } from './records';
import { callerNumber, pickAgents } from './scenarios/common';
import { createRandom, mixSeed } from './scenarios/random';
import { AGENTS, DIDS, GATEWAYS } from './scenarios/roster';

const DAY_MS = 86_400_000;

/**
 * `count` realistic raw payment records (drift included) created over the 24 hours before
 * `nowMs`, newest last; about one in ten still pending. Deterministic for a seed. Fast enough
 * for 100k (benchmarks, the `large` fault).
 */
export function generatePayments(
  count: number,
  seed: number,
  nowMs: number,
  zone: string,
): RawRecord[] {
  const random = createRandom(mixSeed(seed, 'generate-payments'));
  const context = { startMs: 0, nowMs, seed, zone };
  const step = DAY_MS / Math.max(1, count);
  const records: RawRecord[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const atMs = Math.floor(nowMs - DAY_MS + k * step);
    const pending = random.chance(0.1);
    const rendered = renderPayment(
      {
        serial: k,
        atMs,
        paidPaise: random.int(99, 20_000) * 100 + (random.chance(0.3) ? random.int(1, 99) : 0),
        ...(pending ? {} : { settleMs: 0 }),
        gateway: random.pick(GATEWAYS),
      },
      context,
    );
    // renderPayment only omits records created after nowMs, which atMs never is.
    records[k] = rendered?.record ?? {};
  }
  return records;
}

/**
 * `count` realistic raw live-call records (drift included) live at `nowMs`: ringing or
 * answered, on any DID. Deterministic for a seed. Ring-all calls may give extra rows, so the
 * result can be a little longer than `count`.
 */
export function generateLiveCalls(
  count: number,
  seed: number,
  nowMs: number,
  zone: string,
): RawRecord[] {
  const random = createRandom(mixSeed(seed, 'generate-live-calls'));
  const context = { startMs: 0, nowMs, seed, zone };
  const records: RawRecord[] = [];
  for (let k = 0; k < count; k++) {
    const ringMs = random.int(5_000, 90_000);
    const answered = random.chance(0.6);
    // Started long enough ago to be answered (when answered), never long enough to have ended.
    const ageMs = answered ? ringMs + random.int(0, 300_000) : random.int(0, ringMs - 1);
    const direction = random.chance(0.15) ? 2 : 1;
    const calls = renderCall(
      {
        serial: k,
        startMs: nowMs - ageMs,
        ringMs,
        ...(answered ? { talkMs: 600_000 } : {}),
        direction,
        did: random.pick(DIDS),
        caller: callerNumber(random),
        agents:
          direction === 1 && random.chance(0.2) ? pickAgents(random, 3) : [random.pick(AGENTS)],
      },
      context,
    );
    for (const call of calls) records.push(call.record);
  }
  return records;
}
