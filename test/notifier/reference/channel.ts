import type { ChannelConfig, Config } from '../../../shared/types/config';
import {
  acknowledged,
  activeAt,
  groupKey,
  isOpen,
  linesOf,
  pending,
  rank,
  silenced,
  tellsFiring,
  toldFiring,
} from './facts';
import type { Episode, History, Item, Line, ModelMessage } from './history';

/**
 * The reference notifier's channel stage (contract section 6): a channel's held events go out
 * by group (`wait`, `interval`, a critical first firing at once), deferred outside its hours into
 * one digest, silences applied as they go, the SMS cap last.
 */

const HOUR = 3_600_000;

/** What one tick of the reference notifier gives the channel stage. */
export interface StepContext {
  readonly h: History;
  readonly config: Config;
  readonly now: number;
  /** This tick's escalation messages, by channel and step. */
  readonly escalations: ReadonlyMap<string, ModelMessage>;
  /** This tick's handovers of channels gone from the rules file. */
  readonly handovers: readonly ModelMessage[];
  send(message: ModelMessage): void;
}

function dueOf(
  step: StepContext,
  channel: ChannelConfig,
  group: string,
  held: readonly Item[],
): number {
  const { h } = step;
  const first = held[0] as Item;
  // What the group told: an alert a silence kept untold is not firing in it (rule 2: a
  // group with nothing firing starts afresh, when the silence ends too).
  const before = h.items.filter(
    (item) =>
      item.channel === channel.name &&
      item.arrival < first.arrival &&
      item.escalation === undefined &&
      item.fate?.how !== 'silenced' &&
      (item.group ?? groupKey(channel, item)) === group,
  );
  const firing = before.some(
    (item) => item.episode.closed === undefined || item.episode.closed.seenAt >= first.arrival,
  );
  const sent = h.messages.filter(
    (message) =>
      message.kind === 'alerts' && message.channel === channel.name && message.group === group,
  );
  const last = sent[sent.length - 1]?.at;
  const { waitMs, intervalMs } = channel.group;
  let due =
    !firing || last === undefined || first.arrival >= last + intervalMs
      ? first.arrival + waitMs
      : last + intervalMs;
  for (const item of held) {
    if (item.first && item.severity === 'critical') due = Math.min(due, item.arrival + waitMs);
  }
  return due;
}

/** What a channel's held items come to now: silenced ones recorded, the rest told. */
function tell(step: StepContext, items: readonly Item[]): Item[] {
  const told: Item[] = [];
  for (const item of items) {
    if (silenced(step.h, item.episode, item.severity, step.now)) {
      item.fate = { how: 'silenced', at: step.now };
      step.h.muted.push({ episode: item.episode, at: step.now, why: 'silenced' });
    } else {
      item.fate = { how: 'told', at: step.now };
      told.push(item);
    }
  }
  return told;
}

export function channelStep(step: StepContext, channel: ChannelConfig): void {
  const { h, now } = step;
  // A renamed channel's handover goes at once (rule 8), whatever the hours.
  const decided: ModelMessage[] = step.handovers.filter(
    (message) => message.channel === channel.name,
  );
  const heard = (episode: Episode) =>
    toldFiring(h, episode, channel.name) ||
    decided.some((message) => tellsFiring(message, episode));
  if (!activeAt(channel, now)) {
    for (const item of pending(h, channel.name)) item.fate = { how: 'deferred', at: now };
  } else {
    const deferred = h.items.filter(
      (item) =>
        item.channel === channel.name &&
        item.fate?.how === 'deferred' &&
        item.digested === undefined,
    );
    for (const item of deferred) item.digested = now;
    const toldLater = tell(step, deferred);
    if (toldLater.length > 0) {
      decided.push({
        at: now,
        channel: channel.name,
        kind: 'digest',
        lines: linesOf(toldLater, heard),
        sms: false,
      });
    }
    const groups = new Map<string, Item[]>();
    // One alert's waiting events are one message's: all in the group of its first (its rule's
    // severity, a `group.by` value, may change between them when a rules file is deployed).
    const homes = new Map<Episode, string>();
    for (const item of pending(h, channel.name)) {
      const key = homes.get(item.episode) ?? groupKey(channel, item);
      homes.set(item.episode, key);
      item.group = key;
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    for (const [group, held] of groups) {
      if (dueOf(step, channel, group, held) > now) continue;
      const told = tell(step, held);
      if (told.length === 0) continue;
      decided.push({
        at: now,
        channel: channel.name,
        kind: 'alerts',
        lines: linesOf(told, heard),
        group,
        sms: false,
      });
    }
    for (const message of step.escalations.values()) {
      if (message.channel === channel.name) decided.push(message);
    }
  }
  cap(step, channel, decided);
}

/** Room for one more SMS this hour, besides `ahead` this minute's pages still to go. */
function smsRoom(step: StepContext, channel: ChannelConfig, ahead = 0): boolean {
  const sent = step.h.messages.filter(
    (message) =>
      message.channel === channel.name &&
      message.sms &&
      message.kind !== 'ack' &&
      message.at > step.now - HOUR,
  );
  return sent.length + ahead < channel.smsPerHour;
}

/** Contract section 6's SMS cap: the first firing of a critical alert is never held. */
function cap(step: StepContext, channel: ChannelConfig, decided: readonly ModelMessage[]): void {
  const { h, now } = step;
  const floor = rank(channel.minSeverity ?? 'info');
  const wants = (message: ModelMessage) =>
    channel.sms.length > 0 && message.lines.some((line) => rank(line.severity) >= floor);
  // "The first firing of an alert at `critical` ... the SMS cap never holds its SMS" (rule 2):
  // the message that first tells it, even as resolved (it fired and resolved while held); nor
  // is its escalation held, the first message that tells the step's channel of it (the
  // contract's "first message of a new group"), at once or, deferred by active hours, in the
  // channel's digest while the alert still fires unacknowledged (resolved or acknowledged by
  // then, it is news, not a page).
  const deferredPage = (line: Line) => {
    const episode = h.episodes[line.episode] as Episode;
    return (
      line.escalation &&
      line.status === 'firing' &&
      isOpen(episode) &&
      !acknowledged(h, episode, now)
    );
  };
  const pages = (message: ModelMessage) =>
    message.lines.some(
      (line) =>
        line.first ||
        deferredPage(line) ||
        (line.severity === 'critical' && line.status === 'firing' && message.kind === 'escalation'),
    );
  // "At most `smsPerHour` SMS per channel per rolling hour": a page goes whatever the count,
  // so this minute's pages count first and the room they leave goes to the other messages,
  // the most severe first, then the one telling more alerts (an alert it leaves out stays
  // owed), then more of them resolved (the latest news), then by their alerts' keys and ends'
  // (which of two messages of the same alerts and ends: a boundary).
  const paging = decided.filter((message) => wants(message) && pages(message)).length;
  let slots = 0;
  while (smsRoom(step, channel, paging + slots)) slots += 1;
  const severity = (message: ModelMessage) =>
    Math.max(...message.lines.map((line) => rank(line.severity)));
  const keys = (message: ModelMessage) =>
    [...new Set(message.lines.map((line) => line.key))].sort().join('\n');
  const count = (message: ModelMessage) => new Set(message.lines.map((line) => line.key)).size;
  const ended = (message: ModelMessage) =>
    message.lines.filter((line) => line.status === 'resolved').map((line) => line.key);
  const ends = (message: ModelMessage) => [...new Set(ended(message))].sort().join('\n');
  const granted = new Set(
    decided
      .filter((message) => wants(message) && !pages(message))
      .sort(
        (a, b) =>
          severity(b) - severity(a) ||
          count(b) - count(a) ||
          new Set(ended(b)).size - new Set(ended(a)).size ||
          (keys(a) < keys(b) ? -1 : keys(a) > keys(b) ? 1 : 0) ||
          (ends(a) < ends(b) ? -1 : ends(a) > ends(b) ? 1 : 0),
      )
      .slice(0, slots),
  );
  const sent = new Set(
    decided.filter((message) => wants(message) && (pages(message) || granted.has(message))),
  );
  // What an SMS of this minute tells is told, whatever the order of the minute's messages: the
  // cap holds none of it for another message of the minute, and what it held before is held
  // back no more (the digest tells only what the cap held back, section 6); but an end the
  // SMS did not tell (it told the firing) is news, still owed.
  const told = new Map<number, boolean>();
  for (const message of sent) {
    for (const line of message.lines) {
      told.set(line.episode, told.get(line.episode) === true || line.status === 'resolved');
    }
  }
  const owed = (episode: number, status: Line['status']) => {
    const resolved = told.get(episode);
    return resolved === undefined || (status === 'resolved' && !resolved);
  };
  for (const entry of h.smsHeld) {
    if (
      entry.channel === channel.name &&
      entry.recapped === undefined &&
      !owed(entry.episode.id, entry.status)
    )
      entry.recapped = now;
  }
  for (const message of decided) {
    if (sent.has(message)) {
      message.sms = true;
    } else if (wants(message)) {
      for (const line of message.lines) {
        if (!owed(line.episode, line.status)) continue;
        const episode = h.episodes[line.episode] as Episode;
        // Each of its events, at its own severity (the digest owes the latest SMS of it).
        for (const severity of line.severities ?? [line.severity]) {
          h.smsHeld.push({ channel: channel.name, episode, status: line.status, severity });
        }
      }
    }
    step.send(message);
  }
  const held = h.smsHeld.filter(
    (entry) => entry.channel === channel.name && entry.recapped === undefined,
  );
  if (held.length === 0 || !activeAt(channel, now) || !smsRoom(step, channel)) return;
  for (const entry of held) entry.recapped = now;
  const lines: Line[] = [];
  const toldHere = (episode: Episode) =>
    h.messages.some(
      (message) =>
        message.channel === channel.name &&
        message.kind !== 'ack' &&
        message.lines.some((line) => line.episode === episode.id),
    );
  for (const episode of new Set(held.map((entry) => entry.episode))) {
    // Each alert's latest status: not an earlier firing's, once a later one was told here.
    const later = h.episodes.some(
      (other) => other.key === episode.key && other.id > episode.id && toldHere(other),
    );
    if (later) continue;
    // "An event held by grouping, the cap or active hours that a silence matches by then is
    // recorded silenced, not sent" (rule 5): the alert as the latest SMS the cap held of it (a
    // line below `minSeverity` owes none) was, all of it or none.
    const mine = held.filter((entry) => entry.episode === episode);
    const owed = mine.filter((entry) => rank(entry.severity) >= floor).at(-1) ?? mine.at(-1);
    if (silenced(h, episode, owed?.severity ?? episode.severity, now)) {
      h.muted.push({ episode, at: now, why: 'silenced' });
      continue;
    }
    const latest = h.messages
      .filter((message) => message.channel === channel.name && message.kind !== 'ack')
      .flatMap((message) => message.lines)
      .filter((line) => line.episode === episode.id);
    // The latest status told (rule 3); fired and resolved while held: with `firedAt`.
    const line = latest[latest.length - 1];
    if (line === undefined) continue;
    const fired = held.some((entry) => entry.episode === episode && entry.status === 'firing');
    lines.push(line.status === 'resolved' && fired ? { ...line, firedAt: episode.firedAt } : line);
  }
  if (lines.length > 0)
    step.send({ at: now, channel: channel.name, kind: 'recap', lines, sms: true });
}
