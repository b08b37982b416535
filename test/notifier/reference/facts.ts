import type { ChannelConfig, Config, RuleConfig } from '../../../shared/types/config';
import { SEVERITIES } from '../../../shared/types/config';
import type { Episode, History, Item, Line, ModelMessage } from './history';

/** What the reference notifier's history says: plain questions, each asked of the logs. */

const HOUR = 3_600_000;
const ZONE_OFFSET_MS = 5.5 * HOUR; // Asia/Kolkata, the timelines' zone: no summer time.

export const rank = (severity: string) =>
  SEVERITIES.indexOf(severity as (typeof SEVERITIES)[number]);

/** Contract section 6, active hours: every day here, `from`-`to` local, across midnight too. */
export function activeAt(channel: ChannelConfig, now: number): boolean {
  if (channel.active === undefined) return true;
  const minute = Math.floor(((now + ZONE_OFFSET_MS) % (24 * HOUR)) / 60_000);
  const { fromMinutes: from, toMinutes: to } = channel.active;
  return from < to ? from <= minute && minute < to : minute >= from || minute < to;
}

export function ruleOf(config: Config, name: string): RuleConfig | undefined {
  return config.rules.find((rule) => rule.name === name);
}

/** A matcher holds: `rule`, `severity`, `source`, else a label, compared for equality. */
export function silenced(h: History, episode: Episode, severity: string, now: number): boolean {
  return h.silences.some(
    (silence) =>
      silence.startsAt <= now &&
      now < silence.endsAt &&
      Object.entries(silence.matchers).every(([name, value]) => {
        if (name === 'rule') return episode.rule === value;
        if (name === 'severity') return severity === value;
        if (name === 'source') return episode.source === value;
        // As the rules read it (rule 5): a record's identity exactly, other text in any case.
        const label = episode.labels[name];
        if (label === undefined) return false;
        if (name === 'call_id' || name === 'id') return label === value;
        return label.trim().toLowerCase() === value.trim().toLowerCase();
      }),
  );
}

export function isOpen(episode: Episode): boolean {
  return episode.closed === undefined;
}

export function acknowledged(h: History, episode: Episode, now: number): boolean {
  const acks = h.acks.filter((ack) => ack.episode === episode);
  const last = acks[acks.length - 1];
  if (last === undefined) return false;
  return last.until === undefined || now < last.until;
}

/**
 * The episode's own channels: its rule's when it fired, and those its repeats went to since (a
 * rules file deployed while it fired may have renamed one, contract 6.1 rule 8). Not the
 * channels an escalation step told.
 */
export function ownChannels(h: History, episode: Episode): Set<string> {
  const own = new Set(episode.channels);
  for (const item of h.items) {
    if (item.episode !== episode || item.escalation !== undefined || item.stepRetold) continue;
    own.add(item.channel);
  }
  return own;
}

/** Channels told the episode's firing, by any kind of message. */
export function heardBy(h: History, episode: Episode): Set<string> {
  const out = new Set<string>();
  for (const message of h.messages) {
    // Rule 6 names the rule's telling and the escalation's; a handover or a recap is neither.
    if (message.kind === 'ack' || message.kind === 'recap' || message.kind === 'handover') {
      continue;
    }
    if (message.lines.some((line) => line.episode === episode.id && line.status === 'firing')) {
      out.add(message.channel);
    }
  }
  return out;
}

export function pending(h: History, channel: string): Item[] {
  return h.items.filter((item) => item.channel === channel && item.fate === undefined);
}

export function groupKey(channel: ChannelConfig, item: Item): string {
  return JSON.stringify(
    channel.group.by.map((name) => {
      if (name === 'rule') return item.episode.rule;
      if (name === 'severity') return item.severity;
      if (name === 'source') return item.episode.source;
      return item.episode.labels[name] ?? '';
    }),
  );
}

/**
 * One line per alert: its latest event; fired and resolved while held (or its firing never told
 * to this channel): resolved, with `firedAt` (rule 3).
 */
export function linesOf(items: readonly Item[], heard: (episode: Episode) => boolean): Line[] {
  const lines: Line[] = [];
  // A line per firing (rules 1, 3, 6). A boundary the contract leaves open, for floods: of an
  // alert with more than three firings in one message, those between its first and its last
  // share one line (docs/decisions.md), told as the last of them.
  const between = new Map<Episode, Episode>();
  for (const key of new Set(items.map((item) => item.episode.key))) {
    const episodes = [...new Set(items.filter((i) => i.episode.key === key).map((i) => i.episode))];
    if (episodes.length <= 3) continue;
    const middle = episodes.slice(1, -1);
    for (const episode of middle) between.set(episode, middle[middle.length - 1] as Episode);
  }
  const lineOf = (item: Item) => between.get(item.episode) ?? item.episode;
  for (const episode of new Set(items.map(lineOf))) {
    const mine = items.filter((item) => lineOf(item) === episode);
    const last = mine[mine.length - 1] as Item;
    // A resolution tells its firing's time when the firing is told with it, or was never told.
    const fired = mine.some((item) => item.status === 'firing') || !heard(episode);
    lines.push({
      key: episode.key,
      status: last.status,
      at: last.at,
      ...(last.status === 'resolved' && fired ? { firedAt: episode.firedAt } : {}),
      episode: episode.id,
      // One alert has one severity in a message: its highest, should its rule's have changed
      // between its events (a rules file deployed while it fired).
      severity: mine.reduce(
        (high, item) => (rank(item.severity) > rank(high) ? item.severity : high),
        last.severity,
      ),
      severities: mine.map((item) => item.severity),
      // A page by its own event's severity: an alert that fired at info is not paged because a
      // rules file deployed since made its repeats critical (rule 2: "the first firing of an
      // alert at critical").
      first: mine.some((item) => item.first && item.severity === 'critical'),
      escalation: mine.some(
        (item) => item.escalation !== undefined && item.severity === 'critical',
      ),
    });
  }
  return lines;
}

/**
 * The message told the episode's firing as the alert's own telling: not an acknowledgement's,
 * nor a handover (a health channel hearing what a gone channel kept has not heard the alert
 * as one of its own channels: its own telling there is still its page, and its resolution
 * tells `firedAt`; decisions: the notifier).
 */
export function tellsFiring(message: ModelMessage, episode: Episode): boolean {
  return (
    message.kind !== 'ack' &&
    message.kind !== 'handover' &&
    message.lines.some((line) => line.episode === episode.id && line.status === 'firing')
  );
}

/** The channel was told the episode's firing (`tellsFiring`). */
export function toldFiring(h: History, episode: Episode, channel: string): boolean {
  return h.messages.some((message) => message.channel === channel && tellsFiring(message, episode));
}
