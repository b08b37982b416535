import { readsSource } from '../config/sources';
import type { RecordBatch } from '../records/batch';
import type { PollResult } from '../records/types';
import type { Config, RuleConfig, SourceName } from '../types/config';
import { takeAckCalls } from './ack-calls';
import { aggregateContext, compileRule, type Observation } from './aggregate';
import { Observations, type ObservedRule } from './collectors';
import { healthAfterFailure, healthKey, healthTarget } from './health';
import { isHeld, untrackedReason } from './held';
import { step } from './lifecycle';
import { limitKey, limitStep, limitTarget, MAX_EXAMPLES, Overflow, ruleLimit } from './limit';
import { buildNotification, type NotificationTarget } from './notify';
import { observeAll } from './observe';
import { preferredPayment } from './preferred';
import { evaluateUnread, rememberRules, retireRemovedRules, withNewTo } from './retired';
import { checkState, emptyState } from './state';
import type { AlertInstance, Evaluation, Notification, RememberedRule } from './types';

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function ruleTarget(rule: RuleConfig): NotificationTarget {
  return { rule, ruleName: rule.name, severity: rule.severity, channels: rule.notify };
}

/**
 * Payments are a log: an instance is forgotten once the payment's `created_at` (or, unknown,
 * the last time it was seen) is older than the lookback window, unless it is held (`held.ts`).
 */
function forgotten(config: Config, instance: AlertInstance, nowMs: number): boolean {
  const since = instance.createdAtMs ?? instance.lastSeenAt;
  return since < nowMs - config.sources.payments.lookbackMs;
}

/** One rule of a successful poll, before the pass over the records. */
interface PreparedRule {
  readonly rule: RuleConfig;
  readonly perRecordLog: boolean;
  readonly existing: ReadonlyMap<string, AlertInstance>;
  readonly observed: ObservedRule;
}

function prepareRule(
  config: Config,
  rule: RuleConfig,
  previous: readonly AlertInstance[],
  nowMs: number,
  anyHeld: boolean,
  limit: number,
): PreparedRule {
  const compiled = compileRule(rule, config.timezone);
  const perRecordLog = rule.source === 'payments' && rule.count === undefined;
  const lookbackStart = nowMs - config.sources.payments.lookbackMs;
  // A payment past the lookback is forgotten only when this poll does not show it again
  // (`settleRule`): one without `created_at`, dated by when it was last seen, may reappear.
  const existing = new Map<string, AlertInstance>();
  // Payments of firing alerts held past the lookback: the poll fetched them to see them resolve.
  const held = new Set<string>();
  for (const instance of previous) {
    existing.set(instance.key, instance);
    const id = instance.labels.id;
    if (perRecordLog && id !== undefined && isHeld(config, rule, instance, nowMs)) held.add(id);
  }
  // An aggregate counts the lookback window: not the held payments' windows fetched beside it
  // (from its first whole second, as `from_date` asks the API). Only polls that asked such
  // windows check each matching row's date.
  const windowStart = Math.floor(lookbackStart / 1000) * 1000;
  const observed: ObservedRule = rule.count
    ? {
        compiled,
        distinct: rule.source === 'payments',
        ...(rule.source === 'payments' && anyHeld
          ? { keep: (createdAtMs: number | undefined) => (createdAtMs ?? nowMs) >= windowStart }
          : {}),
      }
    : {
        compiled,
        tracked: existing.values(),
        compactContext: perRecordLog,
        ...(perRecordLog
          ? {
              keep: (createdAtMs: number | undefined, id: string) =>
                (createdAtMs ?? nowMs) >= lookbackStart || held.has(id),
              // One row per payment (`distinctPayments`): what the rule cannot start is only
              // counted, but for the examples `too_many_alerts` lists.
              newAtMost: {
                count: Math.max(0, limit - existing.size) + MAX_EXAMPLES,
                tracks: (key: string) => existing.has(key),
              },
            }
          : {}),
      };
  return { rule, perRecordLog, existing, observed };
}

/**
 * One rule over one successful poll, given what the pass observed: its instances, what to tell,
 * and what it could not track. Instances already tracked stay; new ones start, in key order,
 * while the rule has fewer than `limit` (`limit.ts`); the rest are counted in `overflow`
 * (a slot freed by a resolution is taken at the next evaluation). A resolution names the
 * channels its firing never reached (`remembered`: the rule's earlier `notify` lists).
 */
function settleRule(
  config: Config,
  prepared: PreparedRule,
  observed: Observations,
  nowMs: number,
  limit: number,
  remembered: RememberedRule | undefined,
): { instances: AlertInstance[]; notifications: Notification[]; overflow: Overflow } {
  const { rule, perRecordLog, existing } = prepared;
  const overflow = new Overflow(limit);
  let free = Math.max(0, limit - existing.size);
  // The previous instances' keys come sorted (this order), so the sort mostly checks them.
  const keys = [...existing.keys()];
  for (const key of observed.keys()) if (!existing.has(key)) keys.push(key);
  keys.sort(byKey);
  const instances: AlertInstance[] = [];
  const notifications: Notification[] = [];
  for (const key of keys) {
    const before = existing.get(key);
    let observation: Observation | undefined = observed.get(key);
    if (before === undefined && observation?.holds === true) {
      if (free === 0) {
        overflow.add(observation.labels);
        continue;
      }
      free -= 1;
    }
    if (observation === undefined && before !== undefined) {
      // A log keeps an absent payment untouched: only a sighting resolves it. One already seen
      // no longer matching, held only by keepFiring, resolves once that has passed (`step`).
      // Held past the lookback (`held.ts`), an absent payment goes on as any absent one.
      if (
        perRecordLog &&
        forgotten(config, before, nowMs) &&
        !isHeld(config, rule, before, nowMs)
      ) {
        // Never silently: the on-call was told it fires, so they are told it is no longer
        // followed (a rule with `resolved: false` tells no resolutions at all: its resolution
        // is untold, for the notifier alone).
        if (before.state === 'firing') {
          const reason = untrackedReason(config, before, nowMs);
          const notification = buildNotification(
            config,
            rule.source,
            ruleTarget(rule),
            'resolved',
            before,
            nowMs,
            reason,
          );
          notifications.push(withNewTo(notification, before, remembered));
        }
        continue;
      }
      if (perRecordLog && !(before.state === 'firing' && before.lastSeenAt > before.lastTrueAt)) {
        instances.push(before);
        continue;
      }
      if (rule.count) {
        observation = {
          key,
          labels: before.labels,
          holds: false,
          value: 0,
          context: aggregateContext(rule, before.labels, 0, []),
        };
      }
    }
    const result = step(rule, before, observation, nowMs);
    if (result.next) instances.push(result.next);
    if (result.notify && result.about) {
      const notification = buildNotification(
        config,
        rule.source,
        ruleTarget(rule),
        result.notify,
        result.about,
        nowMs,
      );
      notifications.push(withNewTo(notification, result.about, remembered));
    }
  }
  overflow.addUnlisted(observed.unlisted);
  return { instances, notifications, overflow };
}

/**
 * Records of one poll, one per identity for payments (the planner may ask several windows).
 * Of several rows of one payment, the one `preferredPayment` picks counts (the most advanced
 * status), wherever the rows stand. Identities in order (as an API lists a log) cannot repeat:
 * a pass of comparisons instead of hashing 100,000 ids.
 */
function distinctPayments(records: RecordBatch, zone: string): RecordBatch {
  if (records.keyOrder() !== 0) return records;
  // The row that counts of each identity, in the order identities first appear.
  const byIdentity = new Map<string, number>();
  for (let index = 0; index < records.length; index += 1) {
    const key = records.key(index);
    const earlier = byIdentity.get(key);
    byIdentity.set(
      key,
      earlier === undefined ? index : preferredPayment(records, earlier, index, zone),
    );
  }
  return byIdentity.size === records.length ? records : records.select([...byIdentity.values()]);
}

/**
 * The rule engine: one poll of one source in, the source's next state and the notifications
 * owed out (contract sections 2 and 3). Pure: no I/O, no clock but `nowMs`, inputs untouched.
 *
 * - A failed poll changes no rule state: it counts a consecutive failure, and at exactly
 *   `health.after` of them one `source_unavailable` (labels `{source}`, critical, to
 *   `health.notify`) fires; it never repeats.
 * - A successful poll resets the count, resolves `source_unavailable` if it fired, then
 *   evaluates every rule of the source. Firing instances of rules no longer in the config are
 *   told resolved, with the reason, to the channels the config last gave them (`retired.ts`,
 *   contract 6.1 rule 8); the rest of their instances are dropped.
 * - live_calls is a snapshot: an instance absent from the poll no longer holds. A payments
 *   per-record instance follows log semantics: absent, it stays untouched; it changes only
 *   when the payment reappears, and is forgotten silently after the lookback. Aggregate
 *   rules count over the whole answer (for payments, the lookback window), so an absent
 *   group counts 0 and no longer holds.
 * - Payments returned twice (several pushed-down requests) count once, by `id`.
 * - A rule tracks at most `ruleLimit` instances (`limit.ts`): what it cannot start is counted
 *   and told by one `too_many_alerts{rule}` (firing while anything is left untracked).
 * - Calls to `ack.did` (`ack-calls.ts`) are taken out of a live-calls poll before the rules
 *   see it: a known caller's becomes one `ack_call` event, after `source_unavailable`.
 * - A source no rule reads is polled all the same, asking the API nothing: its poll is not
 *   looked at, and only its removed rules' firing alerts are told resolved (`evaluateUnread`).
 * - Notifications come in a fixed order: `source_unavailable` first, the ack calls, the
 *   removed rules' resolutions by key, then by rule order in
 *   the config, then by alert key, a rule's `too_many_alerts` after its own.
 *
 * @throws IncompatibleStateError when `previous` is of another version or source.
 */
export function evaluate(
  config: Config,
  source: SourceName,
  poll: PollResult,
  nowMs: number,
  previous?: unknown,
): Evaluation {
  const prior = previous === undefined ? emptyState(source) : checkState(previous, source);
  if (!readsSource(config, source)) return evaluateUnread(config, source, prior, nowMs);
  const health = healthKey(source);
  if (!poll.ok) {
    const failures = prior.consecutiveFailures + 1;
    const { instance, fired } = healthAfterFailure(
      config,
      source,
      prior.alerts[health],
      poll.error,
      failures,
      nowMs,
    );
    const alerts = instance ? { ...prior.alerts, [health]: instance } : prior.alerts;
    const notifications =
      fired && instance
        ? [buildNotification(config, source, healthTarget(config), 'firing', instance, nowMs)]
        : [];
    return { state: { ...prior, consecutiveFailures: failures, alerts }, notifications };
  }

  const notifications: Notification[] = [];
  const outage = prior.alerts[health];
  if (outage) {
    notifications.push(
      buildNotification(config, source, healthTarget(config), 'resolved', outage, nowMs),
    );
  }
  const calls =
    source === 'live_calls' ? takeAckCalls(config, poll.records, prior.ackCalls, nowMs) : undefined;
  for (const notification of calls?.notifications ?? []) notifications.push(notification);
  for (const notification of retireRemovedRules(config, source, prior, nowMs)) {
    notifications.push(notification);
  }
  const records =
    source === 'payments'
      ? distinctPayments(poll.records, config.timezone)
      : (calls?.records ?? poll.records);
  const alerts: Record<string, AlertInstance> = {};
  const byRule = new Map<string, AlertInstance[]>();
  for (const instance of Object.values(prior.alerts)) {
    if (instance.key === health) continue;
    const list = byRule.get(instance.rule);
    if (list) list.push(instance);
    else byRule.set(instance.rule, [instance]);
  }
  const rules = config.rules.filter((rule) => rule.source === source);
  // Whether the plan asked windows for held payments (`held.ts`), from the same state.
  const anyHeld = rules.some((rule) =>
    (byRule.get(rule.name) ?? []).some((instance) => isHeld(config, rule, instance, nowMs)),
  );
  const limit = ruleLimit(config, source);
  const prepared = rules.map((rule) =>
    prepareRule(config, rule, byRule.get(rule.name) ?? [], nowMs, anyHeld, limit),
  );
  const observations = observeAll(
    prepared.map((rule) => rule.observed),
    records,
    nowMs,
    config.timezone,
  );
  prepared.forEach((rule, index) => {
    const result = settleRule(
      config,
      rule,
      observations[index] ?? new Observations(),
      nowMs,
      limit,
      prior.rules?.[rule.rule.name],
    );
    for (const instance of result.instances) alerts[instance.key] = instance;
    // One at a time: spreading 150,000 into push() overflows the call stack.
    for (const notification of result.notifications) notifications.push(notification);
    const key = limitKey(rule.rule.name);
    const limited = limitStep(
      rule.rule,
      prior.alerts[key],
      result.overflow,
      result.instances.length,
      nowMs,
    );
    if (limited.next) alerts[key] = limited.next;
    if (limited.notify && limited.about) {
      const target = limitTarget(config, rule.rule);
      notifications.push(
        buildNotification(config, source, target, limited.notify, limited.about, nowMs),
      );
    }
  });
  const ackCalls =
    calls !== undefined && Object.keys(calls.seen).length > 0 ? calls.seen : undefined;
  const remembered = rememberRules(rules, alerts, prior.rules, nowMs);
  return {
    state: {
      version: prior.version,
      source,
      consecutiveFailures: 0,
      alerts,
      ...(ackCalls === undefined ? {} : { ackCalls }),
      ...(remembered === undefined ? {} : { rules: remembered }),
    },
    notifications,
    ...(calls !== undefined && calls.refused > 0 ? { refusedAckCalls: calls.refused } : {}),
  };
}
