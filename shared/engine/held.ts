import { formatDuration } from '../time/duration';
import type { Config, RuleConfig } from '../types/config';
import type { AlertInstance, SourceState } from './types';

/*
 * Firing payment alerts outlive the lookback. Payments are a log: an alert resolves only when
 * its payment is seen again no longer matching, and the lookback window stops showing a
 * payment once it is older than `lookback`, so a stuck payment that settles a day later was
 * never told resolved. A firing alert is therefore held, and its payment fetched by a narrow
 * window of its own, until it resolves or until `holdMs` after the payment was made; past
 * that it is dropped with a `resolved` notification saying it is no longer tracked.
 */

/** How long after a payment was made its firing alert is followed at the least. */
export const HOLD_FIRING_MS = 7 * 86_400_000;
/** Extra windows a poll fetches for held payments at most (the least recently seen first). */
export const MAX_HELD_WINDOWS = 4;
/** The widest extra window: held payments made within an hour of each other share one. */
export const MAX_HELD_WINDOW_MS = 3_600_000;
/**
 * Around a held payment's `created_at`: the API's timestamps are whole seconds and whether its
 * date bounds are inclusive is not documented, so one second either side includes it either way.
 */
const WINDOW_MARGIN_MS = 1_000;

/** How long a firing payment alert is followed: `HOLD_FIRING_MS`, or the lookback if longer. */
export function holdMs(config: Config): number {
  return Math.max(HOLD_FIRING_MS, config.sources.payments.lookbackMs);
}

/**
 * Whether a firing instance of `rule` is held past the lookback now: a per-record payments
 * rule that tells resolutions (with `resolved: false` nothing would be told), its payment's
 * `created_at` known, older than the lookback, and younger than `holdMs`.
 */
export function isHeld(
  config: Config,
  rule: RuleConfig,
  instance: AlertInstance,
  nowMs: number,
): boolean {
  const created = instance.createdAtMs;
  return (
    rule.source === 'payments' &&
    rule.count === undefined &&
    rule.resolved &&
    instance.state === 'firing' &&
    created !== undefined &&
    created < nowMs - config.sources.payments.lookbackMs &&
    created >= nowMs - holdMs(config)
  );
}

/**
 * Why a firing payment alert is dropped unresolved, for its `resolved` notification: made
 * longer ago than `holdMs`, or (no `created_at`) not seen for the lookback.
 */
export function untrackedReason(config: Config, instance: AlertInstance, nowMs: number): string {
  if (instance.createdAtMs === undefined) {
    return `no longer tracked (not seen for ${formatDuration(config.sources.payments.lookbackMs)})`;
  }
  return `no longer tracked (made ${formatDuration(nowMs - instance.createdAtMs)} ago, followed ${formatDuration(holdMs(config))})`;
}

/** One extra payments window, epoch ms. */
export interface HeldWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * The extra windows a payments poll fetches so that held alerts can resolve: around each held
 * payment's `created_at`, those made within `MAX_HELD_WINDOW_MS` of each other in one window,
 * at most `MAX_HELD_WINDOWS`, the payments seen least recently first (so, with more than fit,
 * each is fetched in turn). Sorted by time. Pure.
 */
export function heldWindows(
  config: Config,
  state: SourceState | undefined,
  nowMs: number,
): HeldWindow[] {
  if (state === undefined) return [];
  const rules = new Map(config.rules.map((rule) => [rule.name, rule]));
  const held: AlertInstance[] = [];
  for (const instance of Object.values(state.alerts)) {
    const rule = rules.get(instance.rule);
    if (rule !== undefined && isHeld(config, rule, instance, nowMs)) held.push(instance);
  }
  held.sort((a, b) => a.lastSeenAt - b.lastSeenAt || (a.createdAtMs ?? 0) - (b.createdAtMs ?? 0));
  const windows: { fromMs: number; toMs: number }[] = [];
  for (const instance of held) {
    const created = instance.createdAtMs ?? 0;
    const fromMs = created - WINDOW_MARGIN_MS;
    const toMs = created + WINDOW_MARGIN_MS;
    const joins = windows.find(
      (w) => Math.max(w.toMs, toMs) - Math.min(w.fromMs, fromMs) <= MAX_HELD_WINDOW_MS,
    );
    if (joins !== undefined) {
      joins.fromMs = Math.min(joins.fromMs, fromMs);
      joins.toMs = Math.max(joins.toMs, toMs);
    } else if (windows.length < MAX_HELD_WINDOWS) {
      windows.push({ fromMs, toMs });
    }
  }
  return windows.sort((a, b) => a.fromMs - b.fromMs);
}
