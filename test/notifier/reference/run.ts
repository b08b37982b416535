import { validateConfig } from '../../../shared/config/validate';
import { ACK_CALL } from '../../../shared/engine/ack-calls';
import { evaluate } from '../../../shared/engine/evaluate';
import type { Notification, SourceState } from '../../../shared/engine/types';
import { decide } from '../../../shared/notifier/decide';
import type { PersonAction } from '../../../shared/notifier/people';
import { makeSilence } from '../../../shared/notifier/silence';
import type { NotifierState, Outbound } from '../../../shared/notifier/types';
import type { ApiRecord } from '../../../shared/records/types';
import type { Config, SourceName } from '../../../shared/types/config';
import { call, ok, payment } from '../../engine/fixtures';
import {
  ACK_DID,
  type Action,
  type ChannelSpec,
  HOUR,
  MINUTE,
  PHONES,
  RULE_DIDS,
  type RuleSpec,
  type RulesFile,
  type Spell,
  START,
  type Timeline,
} from './timeline';

/**
 * A timeline made concrete: its rules files read by the product's own config reader, its world
 * polled through the real engine, and its clock. What both notifiers take: the engine's events
 * (with what the engine knew of each: a new firing or a repeat, and firings that ended without
 * an event) and people's actions, at the notifier's ticks.
 */

const STRANGER = '+919811111111';
/** After the timeline, the clock goes on this long (digests, escalations, silence ends). */
export const TRAILING_MS = 26 * 60 * MINUTE;

export function callId(rule: string, id: string): string {
  return `${rule === 'stuck' ? 's' : 'r'}${id}`;
}

export function alertKey(rule: string, id: string): string {
  return rule === 'big-pay' ? `${rule}{id=p${id}}` : `${rule}{call_id=${callId(rule, id)}}`;
}

function channelYaml(name: string, spec: ChannelSpec) {
  const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return {
    sms: spec.sms ? [PHONES[name as keyof typeof PHONES] ?? PHONES.finance] : [],
    email: [`${name}@example.com`],
    group: { by: spec.by, wait: `${spec.waitMin}m`, interval: `${spec.intervalMin}m` },
    smsPerHour: spec.smsPerHour,
    ...(spec.minSeverity === undefined ? {} : { minSeverity: spec.minSeverity }),
    ...(spec.active === undefined
      ? {}
      : { active: { from: hour(spec.active.from), to: hour(spec.active.to) } }),
  };
}

function ruleYaml(rule: RuleSpec) {
  const where =
    rule.match === 'big-pay'
      ? { source: 'payments', where: { amount_paid: '> 1000' } }
      : { source: 'live_calls', where: { did: RULE_DIDS[rule.match] } };
  return {
    name: rule.name,
    ...where,
    severity: rule.severity,
    resolved: rule.resolved,
    ...(rule.repeatMin === undefined ? {} : { repeat: `${rule.repeatMin}m` }),
    notify: rule.notify,
    ...(rule.escalate === undefined
      ? {}
      : {
          escalate: rule.escalate.map((step) => ({
            after: `${step.afterMin}m`,
            notify: step.notify,
          })),
        }),
  };
}

/**
 * The rules file as a person writes it (its YAML read, for speed: the zone is the default,
 * Asia/Kolkata), validated as `telealert` validates it.
 */
export function readRulesFile(file: RulesFile): Config {
  return validateConfig(rulesFileData(file), 'telealert.yaml');
}

export function rulesFileData(file: RulesFile): Record<string, unknown> {
  return {
    api: { baseUrl: 'https://api.example.com', tokenParameter: '/telealert/api-token' },
    sources: { live_calls: { every: '1m' }, payments: { every: '5m', lookback: '24h' } },
    health: { notify: ['oncall'] },
    channels: Object.fromEntries(
      Object.entries(file.channels).map(([name, spec]) => [name, channelYaml(name, spec)]),
    ),
    rules: file.rules.map(ruleYaml),
    ...(file.ack ? { ack: { did: ACK_DID } } : {}),
  };
}

/** What the engine decided, as the model reads it. */
export type EngineEvent =
  | {
      readonly kind: 'fire' | 'repeat' | 'resolve' | 'end';
      readonly at: number;
      readonly key: string;
      readonly rule: string;
      readonly severity: Notification['severity'];
      readonly source: SourceName;
      readonly labels: Readonly<Record<string, string>>;
      /**
       * The notification itself (for `end`, a firing over that its rule does not tell: the
       * untold resolution, or absent when the engine said nothing).
       */
      readonly notification?: Notification;
    }
  | {
      readonly kind: 'call';
      readonly at: number;
      readonly caller: string;
      readonly callId: string;
      readonly notification: Notification;
    };

export interface Concrete {
  readonly configs: readonly { readonly fromMs: number; readonly config: Config }[];
  readonly events: readonly EngineEvent[];
  /** People's actions, in time order, as the product takes them. */
  readonly actions: readonly { readonly at: number; readonly action: PersonAction }[];
  /** When the notifier runs. */
  readonly ticks: readonly number[];
  /** When the engine evaluated each source. */
  readonly polls: readonly { readonly source: SourceName; readonly at: number }[];
}

export function configAt(concrete: Concrete, atMs: number): Config {
  let found = concrete.configs[0]?.config as Config;
  for (const { fromMs, config } of concrete.configs) if (fromMs <= atMs) found = config;
  return found;
}

function liveRecords(spells: readonly Spell[], minute: number, calls: readonly Action[]) {
  const records = spells
    .filter((spell) => spell.rule !== 'big-pay' && spell.from <= minute && minute < spell.to)
    .map((spell) =>
      call(callId(spell.rule, spell.id), {
        did: RULE_DIDS[spell.rule as keyof typeof RULE_DIDS],
      }),
    );
  calls.forEach((action, index) => {
    if (action.kind !== 'call' || action.at !== minute) return;
    const from = action.from === 'stranger' ? STRANGER : PHONES[action.from];
    records.push(call(`ack${index}`, { did: ACK_DID, source: from }));
  });
  return records;
}

function paymentRecords(spells: readonly Spell[], minute: number) {
  const byId = new Map<string, string>();
  for (const spell of spells) {
    if (spell.rule !== 'big-pay' || spell.from > minute) continue;
    byId.set(spell.id, minute < spell.to ? '5000' : '10');
  }
  return [...byId].map(([id, amount]) => payment(`p${id}`, { amount_paid: amount }, START));
}

function firingKeys(state: SourceState | undefined): Set<string> {
  return new Set(
    Object.values(state?.alerts ?? {})
      .filter((alert) => alert.state === 'firing')
      .map((alert) => alert.key),
  );
}

function personAction(action: Action, atMs: number, silences: string[]): PersonAction | undefined {
  if (action.kind === 'silence') {
    const silence = makeSilence({
      matchers: action.matchers,
      startsAt: atMs,
      endsAt: atMs + action.forMin * MINUTE,
      comment: `silence ${silences.length}`,
      createdBy: 'property',
    });
    silences.push(silence.id);
    return { kind: 'silence', silence };
  }
  if (action.kind === 'expire') {
    const id = silences[action.silence];
    return id === undefined ? undefined : { kind: 'expire', id };
  }
  if (action.kind === 'ack')
    return { kind: 'ack', key: alertKey(action.rule, action.id), by: 'cli' };
  return undefined;
}

/** Runs the world through the engine and lays out the notifier's clock. */
export function concretise(timeline: Timeline): Concrete {
  const first = readRulesFile(timeline.first);
  const configs = [{ fromMs: START, config: first }];
  if (timeline.change !== undefined) {
    configs.push({
      fromMs: START + timeline.change.at * MINUTE,
      config: readRulesFile(timeline.change.file),
    });
  }
  const concrete0: Concrete = { configs, events: [], actions: [], ticks: [], polls: [] };
  const polls: { source: SourceName; at: number }[] = [];
  const states: Partial<Record<SourceName, SourceState>> = {};
  const events: EngineEvent[] = [];
  const poll = (source: SourceName, minute: number, records: ApiRecord[]) => {
    const atMs = START + minute * MINUTE;
    const config = configAt(concrete0, atMs);
    polls.push({ source, at: atMs });
    const before = firingKeys(states[source]);
    const result = evaluate(config, source, ok(...records), atMs, states[source]);
    states[source] = result.state;
    const after = firingKeys(result.state);
    const told = new Set<string>();
    for (const notification of result.notifications) {
      told.add(notification.key);
      const base = {
        at: atMs,
        key: notification.key,
        rule: notification.rule,
        severity: notification.severity,
        source,
        labels: notification.labels,
        notification,
      };
      if (notification.rule === ACK_CALL) {
        events.push({
          kind: 'call',
          at: atMs,
          caller: notification.labels.from ?? '',
          callId: notification.labels.call_id ?? '',
          notification,
        });
      } else if (notification.status === 'resolved') {
        // An untold resolution (`resolved: false`) is, to the model, a firing over without one.
        events.push({ ...base, kind: notification.untold === true ? 'end' : 'resolve' });
      } else events.push({ ...base, kind: before.has(notification.key) ? 'repeat' : 'fire' });
    }
    for (const key of before) {
      if (after.has(key) || told.has(key)) continue;
      const instance = states[source]?.alerts[key];
      const rule = key.slice(0, key.indexOf('{'));
      events.push({
        kind: 'end',
        at: atMs,
        key,
        rule,
        severity: 'info',
        source,
        labels: instance?.labels ?? {},
      });
    }
  };
  // Every source is polled under any rules file, as deployed: one no rule reads any more too
  // (its poll asks nothing and ends its removed rules' alerts, contract 6.1 rule 8), so a
  // removed rule's firing ends at its source's next poll, as the model has it. A poll with no
  // record after one with none changes nothing (no rule waits `for`): skipped.
  let idle = true;
  for (let minute = 0; minute < timeline.minutes; minute += 1) {
    const records = liveRecords(timeline.spells, minute, timeline.actions);
    const quiet = records.length === 0;
    if (!(quiet && idle)) poll('live_calls', minute, records);
    idle = quiet;
    const paid = timeline.spells.some((spell) => spell.rule === 'big-pay' && spell.from <= minute);
    if (minute % 5 === 0 && paid) poll('payments', minute, paymentRecords(timeline.spells, minute));
  }
  const silences: string[] = [];
  const actions: { at: number; action: PersonAction }[] = [];
  for (const action of timeline.actions) {
    const atMs = START + action.at * MINUTE;
    const taken = personAction(action, atMs, silences);
    if (taken !== undefined) actions.push({ at: atMs, action: taken });
  }
  const ticks: number[] = [];
  const { outage } = timeline;
  for (let minute = 0; minute < timeline.minutes; minute += 1) {
    if (outage !== undefined && outage.from <= minute && minute < outage.to) continue;
    ticks.push(START + minute * MINUTE);
  }
  // Then every 5 minutes for two hours (held groups, escalations, the cap's hour, silences
  // ending), and, when a channel keeps hours, on the hour for a day (windows start on the hour).
  const end = START + timeline.minutes * MINUTE;
  for (let at = end; at < end + 2 * HOUR; at += 5 * MINUTE) ticks.push(at);
  const hours = configs.some(({ config }) =>
    Object.values(config.channels).some((channel) => channel.active !== undefined),
  );
  const hourly = START + Math.ceil((end + 2 * HOUR - START) / HOUR) * HOUR;
  for (let at = hourly; hours && at <= end + TRAILING_MS; at += HOUR) ticks.push(at);
  return { configs, events, actions, ticks, polls };
}

/**
 * The product: `decide`, the step `replay --messages` and the deployed notifier both take, at
 * each tick with the events and actions since the last one (actions first, as replay orders
 * them), under the rules file in force.
 */
export function runProduct(concrete: Concrete): Outbound[] {
  let state: NotifierState | undefined;
  const messages: Outbound[] = [];
  let nextEvent = 0;
  let nextAction = 0;
  for (const now of concrete.ticks) {
    const events: Notification[] = [];
    for (let event = concrete.events[nextEvent]; event !== undefined && event.at <= now; ) {
      if (event.notification !== undefined) events.push(event.notification);
      nextEvent += 1;
      event = concrete.events[nextEvent];
    }
    const actions: PersonAction[] = [];
    for (let item = concrete.actions[nextAction]; item !== undefined && item.at <= now; ) {
      actions.push(item.action);
      nextAction += 1;
      item = concrete.actions[nextAction];
    }
    const decision = decide(configAt(concrete, now), state, events, now, actions);
    state = decision.state;
    for (const outbound of decision.messages) messages.push(outbound);
  }
  return messages;
}
