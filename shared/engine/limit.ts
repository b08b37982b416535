import { TOO_MANY_ALERTS } from '../messages/limit';
import type { Config, RuleConfig, Severity, SourceName } from '../types/config';
import type { NotificationTarget } from './notify';
import { alertKey } from './state';
import type { AlertInstance } from './types';

export { TOO_MANY_ALERTS } from '../messages/limit';

/**
 * The alert instances (pending or firing) one source's state holds at most, shared evenly by
 * the source's rules (`ruleLimit`). Why: the state is one DynamoDB item, refused over ~350 KB
 * compressed, and a firing payment with a usual id costs 30-45 bytes of it; every instance
 * owes a notification when it fires and when it resolves (each an item of its own, a publish,
 * and a rendered message in a 256 MB function). 6,000 fit all of these with room to spare.
 * A rule matching more tracks what it may and raises one `too_many_alerts` instead of
 * crashing the run (Alertmanager's per-alertname limit is the precedent).
 */
export const MAX_ALERTS_PER_SOURCE = 6_000;

/** Example identities a `too_many_alerts` message lists. */
export const MAX_EXAMPLES = 5;

/**
 * The most instances one rule of `source` tracks: `MAX_ALERTS_PER_SOURCE` shared evenly by
 * the source's rules (two payments rules: 3,000 each). Depends on the rules only, so a poll
 * replayed and the same poll deployed track the same instances.
 */
export function ruleLimit(config: Config, source: SourceName): number {
  const rules = config.rules.filter((rule) => rule.source === source).length;
  return Math.max(1, Math.floor(MAX_ALERTS_PER_SOURCE / Math.max(1, rules)));
}

/** What one rule could not track in one evaluation. */
export class Overflow {
  /** Instances the rule would have started and did not: they were not tracked. */
  untracked = 0;
  readonly examples: string[] = [];

  constructor(readonly limit: number) {}

  /** One instance not started: counted, and its labels kept while a message can list them. */
  add(labels: Readonly<Record<string, string>>): void {
    this.untracked += 1;
    if (this.examples.length < MAX_EXAMPLES) {
      this.examples.push(
        Object.entries(labels)
          .map(([name, value]) => `${name}=${value}`)
          .join(' '),
      );
    }
  }

  /** `count` more not started, after every one `add`ed (none of them a message's example). */
  addUnlisted(count: number): void {
    this.untracked += count;
  }
}

/** `too_many_alerts{rule=payment-stuck-pending}`. */
export function limitKey(rule: string): string {
  return alertKey(TOO_MANY_ALERTS, { rule });
}

const SEVERITY_ORDER: readonly Severity[] = ['info', 'warning', 'critical'];

/**
 * `too_many_alerts` goes where the alerts it stands for would have gone (the rule's channels)
 * and to `health.notify`, who keep telealert itself working; at the rule's severity, at least
 * `warning`: alerts are being left out, and a channel's `minSeverity: warning` must not hide it.
 */
export function limitTarget(
  config: Config,
  rule: Pick<RuleConfig, 'notify' | 'severity'>,
): NotificationTarget {
  const channels = [...rule.notify];
  for (const channel of config.health.notify) {
    if (!channels.includes(channel)) channels.push(channel);
  }
  const severity =
    SEVERITY_ORDER.indexOf(rule.severity) < SEVERITY_ORDER.indexOf('warning')
      ? 'warning'
      : rule.severity;
  return { rule: undefined, ruleName: TOO_MANY_ALERTS, severity, channels };
}

function limitContext(
  rule: RuleConfig,
  overflow: Overflow,
  tracked: number,
): Record<string, string> {
  return {
    rule: rule.name,
    untracked: String(overflow.untracked),
    tracked: String(tracked),
    limit: String(overflow.limit),
    ...(overflow.examples.length === 0 ? {} : { examples: overflow.examples.join(', ') }),
  };
}

/** The `too_many_alerts` instance of a rule after one evaluation, and what to tell. */
export interface LimitStep {
  readonly next: AlertInstance | undefined;
  readonly notify?: 'firing' | 'resolved';
  readonly about?: AlertInstance;
}

/**
 * `too_many_alerts` of one rule through one successful evaluation, like `source_unavailable`:
 * fires at once at the first evaluation that leaves anything untracked (never repeats; its
 * context follows the latest count), resolves at the first that leaves nothing untracked.
 * `tracked`: the rule's instances after the evaluation.
 */
export function limitStep(
  rule: RuleConfig,
  previous: AlertInstance | undefined,
  overflow: Overflow,
  tracked: number,
  nowMs: number,
): LimitStep {
  if (overflow.untracked === 0) {
    if (previous === undefined) return { next: undefined };
    const about = { ...previous, context: { ...previous.context, untracked: '0' } };
    return { next: undefined, notify: 'resolved', about };
  }
  const context = limitContext(rule, overflow, tracked);
  if (previous !== undefined) {
    return { next: { ...previous, context, lastTrueAt: nowMs, lastSeenAt: nowMs } };
  }
  const instance: AlertInstance = {
    rule: TOO_MANY_ALERTS,
    key: limitKey(rule.name),
    labels: { rule: rule.name },
    state: 'firing',
    activeAt: nowMs,
    firedAt: nowMs,
    lastSentAt: nowMs,
    lastTrueAt: nowMs,
    lastSeenAt: nowMs,
    context,
  };
  return { next: instance, notify: 'firing', about: instance };
}
