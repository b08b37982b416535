import { NO_RULE_READS_REASON } from '../messages/health';
import type { Config, RuleConfig, Severity, SourceName } from '../types/config';
import { healthKey, healthTarget } from './health';
import { limitTarget, TOO_MANY_ALERTS } from './limit';
import { buildNotification } from './notify';
import type { AlertInstance, Evaluation, Notification, RememberedRule, SourceState } from './types';

/** Why the alerts of a rule the rules file no longer has are told resolved (contract 6.1 rule 8). */
export const RULE_REMOVED_REASON = 'rule removed from the rules file';

/** Built-in alerts: their rule is never in the rules file. */
const BUILT_IN = new Set(['source_unavailable', TOO_MANY_ALERTS]);

type Notified = RememberedRule['notified'];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

/** The channels an alert that fired at `firedAt` was told to, by the rule's remembered lists. */
export function notifiedAt(notified: Notified, firedAt: number): readonly string[] | undefined {
  let found: readonly string[] | undefined;
  for (const item of notified) if (item.since <= firedAt) found = item.notify;
  return found ?? notified[0]?.notify;
}

/**
 * A resolution of a rule whose `notify` changed while the alert fired, with the channels none
 * of its firing messages (the firing, its repeats) went to (`Notification.newTo`): they never
 * heard the firing. The lists in force between its firing and its last repeat count as heard.
 * Others unchanged.
 */
export function withNewTo(
  notification: Notification,
  instance: AlertInstance,
  remembered: RememberedRule | undefined,
): Notification {
  if (remembered === undefined || notification.status !== 'resolved') return notification;
  const { notified } = remembered;
  const only = notified.length === 1 ? notified[0] : undefined;
  if (only !== undefined && sameList(only.notify, notification.channels)) return notification;
  if (instance.firedAt === undefined) return notification;
  const from = instance.firedAt;
  const to = Math.max(from, instance.lastSentAt ?? from);
  const heard = new Set<string>();
  notified.forEach((item, index) => {
    const until = notified[index + 1]?.since ?? Number.POSITIVE_INFINITY;
    if (item.since <= to && until > from) for (const name of item.notify) heard.add(name);
  });
  const fresh = notification.channels.filter((name) => !heard.has(name));
  return fresh.length > 0 ? { ...notification, newTo: fresh } : notification;
}

/**
 * The rules of the alerts firing after a poll (a rule's `too_many_alerts` included), as the
 * rules file in force said them: what a later poll needs to tell those alerts resolved should
 * their rule leave the file, and to whom their firing went should its `notify` change. Only
 * rules with a firing alert are kept, so an idle source's state carries none; a `notify` list
 * is kept while an alert fired under it fires.
 */
export function rememberRules(
  rules: readonly RuleConfig[],
  alerts: Readonly<Record<string, AlertInstance>>,
  prior: Readonly<Record<string, RememberedRule>> | undefined,
  nowMs: number,
): Record<string, RememberedRule> | undefined {
  const oldest = new Map<string, number>();
  for (const instance of Object.values(alerts)) {
    if (instance.state !== 'firing') continue;
    const firedAt = instance.firedAt ?? 0;
    // A rule's `too_many_alerts` counts its pending instances too: it remembers the rule as well.
    const rule = instance.rule === TOO_MANY_ALERTS ? (instance.labels.rule ?? '') : instance.rule;
    oldest.set(rule, Math.min(oldest.get(rule) ?? firedAt, firedAt));
  }
  const remembered: Record<string, RememberedRule> = {};
  for (const rule of rules) {
    const since = oldest.get(rule.name);
    if (since === undefined) continue;
    const before = prior?.[rule.name]?.notified ?? [];
    const last = before[before.length - 1];
    const all =
      last !== undefined && sameList(last.notify, rule.notify)
        ? before
        : [...before, { since: last === undefined ? 0 : nowMs, notify: rule.notify }];
    // Lists no firing alert fired under are forgotten: the first kept is the oldest's.
    let first = 0;
    while (first + 1 < all.length && (all[first + 1]?.since ?? 0) <= since) first += 1;
    remembered[rule.name] = {
      severity: rule.severity,
      resolved: rule.resolved,
      notified: first === 0 ? all : all.slice(first),
    };
  }
  return Object.keys(remembered).length > 0 ? remembered : undefined;
}

/**
 * A rule removed (or renamed: telealert cannot tell a rename from a removal and a new rule)
 * while its alerts fire: each firing alert is told resolved, saying why, to the channels its
 * firing went to, at the severity the rules file last gave it (contract 6.1 rule 8). The
 * notifier adds the channels an escalation reached (rule 6). A rule that told no resolutions
 * (`resolved: false`) ends its alerts with an untold resolution, as they always end; a pending
 * alert is dropped as any pending one. A state written before the rules were remembered tells them to
 * `health.notify`, at `warning`. Notifications in key order.
 */
export function retireRemovedRules(
  config: Config,
  source: SourceName,
  prior: SourceState,
  nowMs: number,
): Notification[] {
  const current = new Set(config.rules.map((rule) => rule.name));
  const gone = Object.values(prior.alerts)
    .filter((instance) => instance.state === 'firing' && retiredRule(instance, current))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const notifications: Notification[] = [];
  for (const instance of gone) {
    if (instance.rule === TOO_MANY_ALERTS) {
      notifications.push(retiredLimit(config, source, prior, instance, nowMs));
      continue;
    }
    const remembered = prior.rules?.[instance.rule];
    const severity: Severity = remembered?.severity ?? 'warning';
    const heard =
      remembered === undefined ? undefined : notifiedAt(remembered.notified, instance.firedAt ?? 0);
    const target = {
      rule: undefined,
      ruleName: instance.rule,
      severity,
      channels: heard ?? config.health.notify,
    };
    const resolution = buildNotification(
      config,
      source,
      target,
      'resolved',
      instance,
      nowMs,
      RULE_REMOVED_REASON,
    );
    // A rule that told no resolutions: untold, the notifier's cue alone (as its alerts end).
    notifications.push(
      remembered?.resolved === false ? { ...resolution, untold: true } : resolution,
    );
  }
  return notifications;
}

/**
 * The rule the file no longer has that an alert stands for: its own, or the one a
 * `too_many_alerts` counted the matches of.
 */
function retiredRule(instance: AlertInstance, current: ReadonlySet<string>): boolean {
  if (instance.rule === TOO_MANY_ALERTS) return !current.has(instance.labels.rule ?? '');
  return !BUILT_IN.has(instance.rule) && !current.has(instance.rule);
}

/**
 * A removed rule's `too_many_alerts`: nothing is left out of a rule telealert no longer
 * evaluates, so it is told resolved, saying why, where it went (the rule's channels its firing
 * went to, and `health.notify`), at the rule's last severity, at least `warning` (`limitTarget`).
 */
function retiredLimit(
  config: Config,
  source: SourceName,
  prior: SourceState,
  instance: AlertInstance,
  nowMs: number,
): Notification {
  const remembered = prior.rules?.[instance.labels.rule ?? ''];
  const rule = {
    notify:
      remembered === undefined
        ? []
        : (notifiedAt(remembered.notified, instance.firedAt ?? 0) ?? []),
    severity: remembered?.severity ?? 'warning',
  };
  const target = limitTarget(config, rule);
  const about = { ...instance, context: { ...instance.context, untracked: '0' } };
  return buildNotification(config, source, target, 'resolved', about, nowMs, RULE_REMOVED_REASON);
}

/**
 * A poll of a source no rule reads (every rule of it removed or renamed). Its poller runs on
 * but asks the API nothing, so the poll is not looked at: the firing alerts of the rules the
 * file no longer has are told resolved, as at any poll (`retireRemovedRules`, contract 6.1
 * rule 8), and the rest of their instances dropped. Its `source_unavailable`, if firing, ends
 * too, saying why (`NO_RULE_READS_REASON`), first as any outage's end: nobody watches the source
 * any more, and nothing will be asked of it to see the outage stop.
 */
export function evaluateUnread(
  config: Config,
  source: SourceName,
  prior: SourceState,
  nowMs: number,
): Evaluation {
  const notifications = retireRemovedRules(config, source, prior, nowMs);
  const outage = prior.alerts[healthKey(source)];
  if (outage !== undefined) {
    const target = healthTarget(config);
    notifications.unshift(
      buildNotification(config, source, target, 'resolved', outage, nowMs, NO_RULE_READS_REASON),
    );
  }
  return {
    state: { version: prior.version, source, consecutiveFailures: 0, alerts: {} },
    notifications,
  };
}
