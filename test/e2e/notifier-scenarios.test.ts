import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoNotifierStore } from '../../functions/adapters/dynamodb-notifier';
import { evaluate } from '../../shared/engine/evaluate';
import type { Notification, SourceState } from '../../shared/engine/types';
import { applyAction } from '../../shared/notifier/people';
import type { Message } from '../../shared/notifier/types';
import { MemoryMessagePublisher } from '../../shared/ports/memory';
import { notifierStep } from '../../shared/runner/notifier-step';
import { replayMessages } from '../../shared/timeline/messages';
import { downUntil } from '../../shared/timeline/outage';
import type { SourceName } from '../../shared/types/config';
import { loadScenario, SCENARIO_FILES } from '../notifier/scenario-files';
import { createStateTable } from '../support/aws';
import { type Moto, startMoto } from './moto';

/** Ticks after the last entry before the run gives up on a notifier that keeps being due. */
const MAX_TRAILING_TICKS = 1_000;

let moto: Moto;
let dynamodb: DynamoDBClient;
let tables = 0;

beforeAll(async () => {
  moto = await startMoto();
  moto.applyEnv();
  dynamodb = new DynamoDBClient({});
});
afterAll(async () => {
  dynamodb?.destroy();
  await moto?.stop();
});

/**
 * A scenario as the deployed notifier runs it: the engine's events of each poll handed to
 * `notifierStep` on the DynamoDB store (the notifier's state written and read back as the
 * item's JSON between steps), the clock's ticks at each due time, people's actions written
 * to the stored state as `telealert silence|ack --stack` does. While the notifier is down (a
 * `notifier` line), it takes no step: the polls' events wait for its first step after, as the
 * pollers' owed events wait in the table. The messages published.
 */
async function deployedMessages(file: string): Promise<readonly Message[]> {
  const { config: first, entries, actions, changes, outages } = loadScenario(file);
  let config = first;
  tables += 1;
  const tableName = `notifier-scenario-${tables}`;
  await createStateTable(dynamodb, tableName);
  let clock = 0;
  const store = new DynamoNotifierStore({ client: dynamodb, tableName, now: () => clock });
  const publisher = new MemoryMessagePublisher();
  let dueAt: number | undefined;
  // Whether anything but a rotation's next handoff is due: trailing ticks stop when not, as
  // replay's do.
  let held = false;
  const waiting: Notification[] = [];
  const step = async (events: readonly Notification[], nowMs: number) => {
    const down = downUntil(outages, nowMs);
    if (down !== undefined) {
      waiting.push(...events);
      dueAt = down;
      held = true;
      return;
    }
    clock = nowMs;
    const backlog = [...waiting.splice(0), ...events];
    const result = await notifierStep({
      config,
      store,
      publisher,
      now: () => nowMs,
      events: backlog,
    });
    dueAt =
      result.nextDueAtMs !== undefined && result.nextDueAtMs > nowMs
        ? result.nextDueAtMs
        : undefined;
    held = result.heldDueAtMs !== undefined;
  };
  const act = async (index: number) => {
    const action = actions[index];
    if (action === undefined) return;
    const stored = await store.loadNotifier();
    const state = applyAction(stored.state, action.action, action.atMs);
    await store.commitNotifier(stored.revision, { state, consumed: stored.consumed, owed: [] });
    await step([], action.atMs);
  };
  const states: Partial<Record<SourceName, SourceState>> = {};
  let nextChange = 0;
  // A deploy: the notifier's next run (at once) and each source's next poll read the new file.
  const deploy = async (atMs: number) => {
    for (let change = changes[nextChange]; change !== undefined && change.atMs <= atMs; ) {
      while (dueAt !== undefined && dueAt < change.atMs) await step([], dueAt);
      config = change.config;
      await step([], change.atMs);
      nextChange += 1;
      change = changes[nextChange];
    }
  };
  let next = 0;
  const until = async (atMs: number) => {
    for (let action = actions[next]; action !== undefined && action.atMs <= atMs; ) {
      await deploy(action.atMs);
      while (dueAt !== undefined && dueAt < action.atMs) await step([], dueAt);
      await act(next);
      next += 1;
      action = actions[next];
    }
    await deploy(atMs);
  };
  for (const entry of entries) {
    await until(entry.atMs);
    while (dueAt !== undefined && dueAt < entry.atMs) await step([], dueAt);
    const result = evaluate(config, entry.source, entry.poll, entry.atMs, states[entry.source]);
    states[entry.source] = result.state;
    await step(result.notifications, entry.atMs);
  }
  await until(Number.POSITIVE_INFINITY);
  for (let tick = 0; dueAt !== undefined && held && tick < MAX_TRAILING_TICKS; tick += 1) {
    await step([], dueAt);
  }
  return publisher.published;
}

describe('Deployed notifier on moto: the notifier scenarios, step by step through DynamoDB', () => {
  it.each(SCENARIO_FILES)(
    'publishes exactly what replay --messages decides: %s',
    async (file) => {
      const { scenario, config, entries, actions, changes, outages } = loadScenario(file);
      const replayed = replayMessages(config, entries, actions, changes, outages).messages;
      const deployed = await deployedMessages(file);
      expect(deployed.map((message) => message.id)).toEqual(replayed.map((message) => message.id));
      expect(deployed).toEqual(replayed);
      // Not vacuous: as many as the scenario expects (none, where a silence keeps everything).
      expect(deployed).toHaveLength(scenario.expect.length);
    },
    120_000,
  );
});
