import type { Direct } from './direct';
import { silenceFor } from './silence';
import { ackHolds, heardAt, settle } from './tracked';
import type { HeldEvent, Silence, TrackedAlert } from './types';
import { keptUntil } from './untold';

function formatWait(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
}

/**
 * The escalation stage (Grafana OnCall's escalation chain, frozen per alert when it fired):
 * steps due now, in order, one `escalation` message per channel and step. It runs after the
 * step's own messages are decided, so that a step's `after` counts from the first message that
 * told the alert to its own channels (contract 6.1 rule 4): no escalation reaches a channel
 * before they heard it. Acknowledged, silenced, or not yet heard: no step. Updates `alerts`.
 */
export function escalate(
  alerts: Map<string, TrackedAlert>,
  silences: readonly Silence[],
  nowMs: number,
): Map<string, Direct[]> {
  const batches = new Map<string, { channel: string; step: number; events: HeldEvent[] }>();
  for (const [key, tracked] of alerts) {
    const steps = tracked.escalate ?? [];
    const heard = heardAt(tracked);
    // An acknowledgement by call that ran out lets its escalation resume, even while its
    // telling again waits for a silence that keeps an earlier event of it (contract 6.1 rule 7).
    if (ackHolds(tracked.ack, nowMs) || tracked.event === undefined || heard === undefined)
      continue;
    // A silence matches it as its latest firing is (a silence that keeps an earlier event of
    // it untold, from before a deploy changed its rule's severity, does not hold it back).
    if (silenceFor(silences, tracked, nowMs) !== undefined) continue;
    let done = tracked.escalated ?? 0;
    // At its latest firing's severity: its event may be the firing a silence kept untold, from
    // before a deploy changed its rule's severity.
    const { event } = tracked;
    const told =
      event.severity === tracked.severity ? event : { ...event, severity: tracked.severity };
    for (let step = steps[done]; step !== undefined; step = steps[done]) {
      if (heard + step.afterMs > nowMs) break;
      for (const channel of step.notify) {
        const id = `${channel}\u0000${done}`;
        const batch = batches.get(id) ?? { channel, step: done, events: [] };
        batch.events.push(told);
        batches.set(id, batch);
      }
      done += 1;
    }
    if (done !== (tracked.escalated ?? 0)) {
      alerts.set(key, settle({ ...tracked, escalated: done }));
    }
  }
  const direct = new Map<string, Direct[]>();
  for (const { channel, step, events } of batches.values()) {
    // A reduce, not Math.min(...): a step may escalate more alerts than a call takes arguments.
    const afterMs = events.reduce(
      (least, event) =>
        Math.min(
          least,
          alerts.get(event.key)?.escalate?.[step]?.afterMs ?? Number.POSITIVE_INFINITY,
        ),
      Number.POSITIVE_INFINITY,
    );
    const item: Direct = {
      reason: 'escalation',
      groupKey: `escalation|${step}`,
      title: Number.isFinite(afterMs) ? formatWait(afterMs) : '',
      events,
      delivers: [],
    };
    const list = direct.get(channel);
    if (list) list.push(item);
    else direct.set(channel, [item]);
  }
  return direct;
}

/** When the next escalation step of a followed alert is due (undefined: none can come yet). */
export function escalationDueAt(tracked: TrackedAlert): number | undefined {
  const step = tracked.escalate?.[tracked.escalated ?? 0];
  const heard = heardAt(tracked);
  if (step === undefined || heard === undefined) return undefined;
  if (tracked.ack !== undefined && tracked.ack.until === undefined) return undefined;
  return Math.max(heard + step.afterMs, tracked.ack?.until ?? 0);
}

/**
 * When the followed alerts next have work: an escalation step, an acknowledgement by call
 * that runs out, or a silence's end (undefined: none can come yet).
 */
export function followedDueAt(
  alerts: ReadonlyMap<string, TrackedAlert>,
  silences: readonly Silence[],
  nowMs: number,
): number | undefined {
  const due: number[] = [];
  for (const tracked of alerts.values()) {
    const untold = tracked.untoldSince !== undefined;
    // A silence holding it as it is now holds everything of it back until it ends.
    const now = silenceFor(silences, tracked, nowMs);
    if (now !== undefined && (untold || tracked.escalate)) {
      due.push(now.endsAt);
      continue;
    }
    // The silences holding what they kept untold, as it was.
    due.push(...keptUntil(tracked, silences, nowMs));
    const step = escalationDueAt(tracked);
    if (step !== undefined) due.push(step);
    // Past and still there, it waits for a silence's end (pushed above).
    const until = tracked.ack?.until;
    if (until !== undefined && until > nowMs) due.push(until);
  }
  return due.length === 0 ? undefined : due.reduce((a, b) => Math.min(a, b));
}
