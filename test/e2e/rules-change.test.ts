import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPollerHandler } from '../../functions/handler';
import { createNotifierHandler } from '../../functions/notifier-handler';
import type { NotifierSummary } from '../../functions/notifier-metrics';
import { writeEmbeddedConfig } from '../../shared/config/embedded';
import { parseConfig } from '../../shared/config/load';
import type { Message } from '../../shared/notifier/types';
import { ManualClock } from '../../simulator/clock';
import { invoke, type RuntimeHarness, silentLogger, startRuntimeHarness } from './lambda';
import { e2eScenario, MINUTE, rulesFile } from './scenario';

/** Saturday 21 November 2026, 10:00 in India. */
const T0 = Date.parse('2026-11-21T10:00:00+05:30');
const clock = new ManualClock(T0);
let harness: RuntimeHarness;

function at(ms: number) {
  clock.set(ms);
  vi.setSystemTime(ms);
}

const FINANCE = 'finance: { email: [finance@example.com] }';
const MONDAYS = 'active: { days: [mon], from: "09:00", to: "18:00" }';

/** The e2e rules with finance keeping Monday office hours, under the name `finance`. */
function firstRules(baseUrl: string, tokenParameter: string): string {
  const rules = rulesFile(baseUrl, tokenParameter);
  if (!rules.includes(FINANCE)) throw new Error(`the e2e rules no longer have ${FINANCE}`);
  return rules.replace(FINANCE, `finance: { email: [finance@example.com], ${MONDAYS} }`);
}

/** The same rules with finance renamed finance-team (its hours, address and rule kept). */
function renamed(rules: string): string {
  return rules
    .replace('  finance: {', '  finance-team: {')
    .replace('notify: [finance]', 'notify: [finance-team]');
}

/**
 * A second deploy as the stack makes it: the new rules file shipped to the functions, and
 * `TELEALERT_TOPICS` naming the topics the new file's channels have (the renamed channel's
 * old topic is gone with it). A new Lambda container reads them on its first invocation.
 */
function deploy(rules: string, channels: readonly string[]): void {
  const configFile = join(harness.directory, 'telealert-v2.json');
  writeEmbeddedConfig(configFile, parseConfig(rules, 'telealert.yaml'));
  writeFileSync(join(harness.directory, 'telealert-v2.yaml'), rules);
  process.env.TELEALERT_CONFIG_FILE = configFile;
  process.env.TELEALERT_TOPICS = JSON.stringify(
    Object.fromEntries(channels.map((name) => [name, harness.stack.topics[name]])),
  );
}

let rules = '';

beforeAll(async () => {
  harness = await startRuntimeHarness({
    prefix: 'e2r',
    scenario: e2eScenario,
    clock,
    channels: {
      oncall: {},
      managers: { minSeverity: 'critical' },
      finance: {},
      'finance-team': {},
    },
    rules: (baseUrl, tokenParameter) => {
      rules = firstRules(baseUrl, tokenParameter);
      return rules;
    },
  });
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterAll(async () => {
  vi.useRealTimers();
  await harness?.close();
});

// One timeline: a deploy, a payment deferred for Monday, a second deploy renaming the channel.
describe('Deployed on moto: a channel renamed between two deploys (contract 6.1 rule 8)', () => {
  const logger = silentLogger();

  it("defers Saturday's large payment to finance's Monday digest under the first deploy", async () => {
    const payments = createPollerHandler('payments', { logger });
    const notifier = createNotifierHandler({ logger });
    at(T0 + 30_000);
    await invoke(payments);
    expect(await harness.streamToNotifier(notifier)).toEqual([
      expect.objectContaining({ taken: 1, decided: [] }),
    ]);
    expect(await harness.stack.drain('finance')).toEqual([]);
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });

  it("tells the health channel what the renamed channel deferred, at the new deploy's first run", async () => {
    deploy(renamed(rules), ['oncall', 'managers', 'finance-team']);
    // The new deploy's containers: they read the new rules and topics.
    const notifier = createNotifierHandler({ logger });
    at(T0 + 2 * MINUTE);
    const round = await invoke<NotifierSummary>(notifier);
    expect(round.decided).toEqual([
      expect.objectContaining({ channel: 'oncall', kind: 'digest', alerts: 1 }),
    ]);
    const [digest, ...more] = (await harness.stack.drain('oncall')) as unknown as Message[];
    expect(more).toEqual([]);
    expect(digest?.kind).toBe('digest');
    expect(digest?.alerts.map((alert) => `${alert.rule}:${alert.status}`)).toEqual([
      'big-payment:firing',
    ]);
    expect(digest?.subject).toContain('Channel finance no longer exists');
    expect(digest?.text).toContain('Channel finance is no longer in the rules file');
    expect(await harness.stack.drain('finance-team')).toEqual([]);
    expect(await harness.stack.drain('finance')).toEqual([]);
  });

  it('owes finance nothing afterwards: Monday morning brings no digest of it', async () => {
    const notifier = createNotifierHandler({ logger });
    // Monday 23 November, 09:00 in India: the window the deferred digest waited for.
    at(Date.parse('2026-11-23T09:00:30+05:30'));
    const round = await invoke<NotifierSummary>(notifier);
    expect(round.decided).toEqual([]);
    expect(round.undeliverable ?? []).toEqual([]);
    expect(await harness.stack.drain('finance-team')).toEqual([]);
    expect(await harness.stack.drain('oncall')).toEqual([]);
  });
});
