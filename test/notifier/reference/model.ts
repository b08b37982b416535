import type { PersonAction } from '../../../shared/notifier/people';
import type { Config, RuleConfig, Severity } from '../../../shared/types/config';
import { channelStep, type StepContext } from './channel';
import {
  acknowledged,
  activeAt,
  heardBy,
  isOpen,
  linesOf,
  ownChannels,
  ruleOf,
  silenced,
  toldFiring,
} from './facts';
import {
  type Episode,
  emptyHistory,
  type History,
  type Item,
  type Line,
  type ModelMessage,
} from './history';

import { type Concrete, configAt, type EngineEvent } from './run';

/** Contract 6.1 rule 7: at most one confirmation per caller per 10 minutes. */
const TEN_MINUTES = 600_000;
/** Contract 6.1 rule 7: an acknowledgement by call lasts `ack.timeout`, 30m by default. */
const ACK_TIMEOUT_MS = 30 * 60_000;

/**
 * The reference notifier: contract sections 6 and 6.1 read literally, small and slow. It keeps
 * logs only (`history.ts`) and at each tick of the clock works out from them, and the rules
 * file in force, what goes out now. No folding, no indexes, no cleverness: where it is unsure
 * what the contract means, the property's findings say so.
 */

class Step implements StepContext {
  readonly out: ModelMessage[] = [];
  /** Escalation messages of this step, by channel and step. */
  readonly escalations = new Map<string, ModelMessage>();
  /** What channels gone from the rules file held, for `health.notify`, this tick. */
  readonly handovers: ModelMessage[] = [];

  constructor(
    readonly h: History,
    readonly config: Config,
    readonly now: number,
    /** A rule as the last rules file that had it said it (rule 8: a removed rule's alerts). */
    readonly lastRule: (name: string) => RuleConfig | undefined = () => undefined,
  ) {}

  /** An event to a channel, at the severity the engine gave it (the firing's, by default). */
  route(
    channel: string,
    episode: Episode,
    status: Item['status'],
    at: number,
    more: Partial<Pick<Item, 'first' | 'escalation' | 'severity' | 'stepRetold'>> = {},
  ) {
    if (this.config.channels[channel] === undefined) return;
    const severity = episode.severity;
    // The digest "tells what fired, resolved, or is still firing" (section 6), and "an alert
    // that fired and resolved while held is told once" (rule 3): an event of an alert the
    // channel still defers joins that digest, even when its window opens at this very tick
    // (the notifier was down meanwhile).
    const deferred = this.h.items.some(
      (other) =>
        other.episode === episode &&
        other.channel === channel &&
        other.fate?.how === 'deferred' &&
        other.digested === undefined,
    );
    this.h.items.push({
      id: this.h.items.length,
      channel,
      episode,
      status,
      at,
      arrival: this.now,
      severity,
      first: false,
      ...more,
      ...(deferred ? { fate: { how: 'deferred' as const, at: this.now } } : {}),
    });
  }

  /**
   * Firings of a rule the rules file no longer has end, told resolved to the channels that heard
   * them, when the engine next evaluates their source under the new file (rule 8): whatever
   * event the engine gave of it then (a resolution, or none). A rule that told no resolutions
   * (`resolved: false`) ends its alerts as it always did.
   */
  retire(polls: readonly { readonly source: string; readonly at: number }[], since: number): void {
    for (const episode of this.h.episodes) {
      if (!isOpen(episode) || ruleOf(this.config, episode.rule) !== undefined) continue;
      const poll = polls.find(
        (item) => item.source === episode.source && item.at >= since && item.at <= this.now,
      );
      if (poll !== undefined) this.removed(episode, poll.at);
    }
  }

  removed(episode: Episode, at: number): void {
    const rule = this.lastRule(episode.rule);
    // At the severity the last rules file that had the rule gave it.
    const severity = rule?.severity ?? episode.severity;
    this.close(episode, (rule?.resolved ?? true) ? 'removed' : 'end', at, [], severity);
  }

  /** A channel gone from the rules file hands what it held to `health.notify` (rule 8). */
  changeChannels(previous: Config): void {
    for (const name of Object.keys(previous.channels)) {
      if (this.config.channels[name] !== undefined) continue;
      const held = this.h.items.filter(
        (item) =>
          item.channel === name &&
          (item.fate === undefined ||
            (item.fate.how === 'deferred' && item.digested === undefined)),
      );
      // Emailed with their SMS held by its cap: the SMS would never go.
      const capped = this.h.smsHeld.filter(
        (entry) => entry.channel === name && entry.recapped === undefined,
      );
      if (held.length === 0 && capped.length === 0) continue;
      for (const item of held) item.fate = { how: 'told', at: this.now };
      for (const entry of capped) entry.recapped = this.now;
      // As the gone channel would have told them: a resolution whose firing it heard is no news.
      // A firing whose SMS the cap held, resolved while held: it fired and resolved unpaged, so
      // it is told resolved with `firedAt` (rule 3), as the cap's digest would have told it.
      const cappedFiring = (episode: Episode) =>
        capped.some((entry) => entry.episode === episode && entry.status === 'firing');
      const lines = linesOf(
        held,
        (episode) => toldFiring(this.h, episode, name) && !cappedFiring(episode),
      );
      const toldThere = this.h.messages
        .filter((message) => message.channel === name && message.kind !== 'ack')
        .flatMap((message) => message.lines);
      for (const episode of new Set(capped.map((entry) => entry.episode))) {
        if (lines.some((line) => line.episode === episode.id)) continue;
        // Each alert's latest firing, as the cap's digest tells it (rule 3): not an earlier
        // firing's, once a later one was told there.
        const later = this.h.episodes.some(
          (other) =>
            other.key === episode.key &&
            other.id > episode.id &&
            toldThere.some((line) => line.episode === other.id),
        );
        if (later) continue;
        const told = toldThere.filter((line) => line.episode === episode.id);
        const last = told[told.length - 1];
        if (last === undefined) continue;
        // As the cap's digest tells them: fired and resolved while held, with `firedAt`.
        const fired = capped.some(
          (entry) => entry.episode === episode && entry.status === 'firing',
        );
        const firedAt = last.status === 'resolved' && fired ? { firedAt: episode.firedAt } : {};
        lines.push({ ...last, ...firedAt, first: false });
      }
      // In the order they happened, so each alert's latest status is its last line (rule 3).
      lines.sort((a, b) => a.at - b.at);
      for (const target of this.config.health.notify) {
        this.handovers.push({ at: this.now, channel: target, kind: 'handover', lines, sms: false });
      }
    }
  }

  close(
    episode: Episode,
    how: 'resolve' | 'end' | 'removed',
    at: number,
    channels: readonly string[] = [],
    severity: Severity = episode.severity,
  ) {
    episode.closed = { seenAt: this.now, at, how };
    // Held by a group or deferred by active hours, not told yet.
    const waiting = new Set(
      this.h.items
        .filter(
          (item) =>
            item.episode === episode &&
            (item.fate === undefined ||
              (item.fate.how === 'deferred' && item.digested === undefined)),
        )
        .map((item) => item.channel),
    );
    const targets = new Set(waiting);
    if (how !== 'end') for (const name of heardBy(this.h, episode)) targets.add(name);
    if (how === 'resolve') for (const name of channels) targets.add(name);
    // Rule 8: as a resolution would have gone, to the channels its rule notified.
    if (how === 'removed') for (const name of episode.channels) targets.add(name);
    for (const name of targets) this.route(name, episode, 'resolved', at, { severity });
  }

  act(action: PersonAction): void {
    if (action.kind === 'silence') {
      const { id, matchers, startsAt, endsAt } = action.silence;
      this.h.silences.push({ id, matchers, startsAt, endsAt });
    } else if (action.kind === 'expire') {
      for (const silence of this.h.silences) {
        if (silence.id === action.id) silence.endsAt = Math.min(silence.endsAt, this.now);
      }
    } else if (action.kind === 'ack') {
      // Overrides change who a rotation's message reaches, not what is told: the model's
      // channels have no rotation, so it has nothing to do for them. A person's acknowledgement
      // replaces one by call, which lasts `ack.timeout` only (decisions: the notifier).
      for (const episode of this.h.episodes) {
        if (episode.key !== action.key || !isOpen(episode)) continue;
        const last = this.h.acks.filter((ack) => ack.episode === episode).at(-1);
        if (acknowledged(this.h, episode, this.now) && last?.via !== 'call') continue;
        this.h.acks.push({ episode, at: this.now, via: 'cli' });
      }
    }
  }

  take(event: EngineEvent): void {
    const { h, now } = this;
    if (event.kind === 'call') {
      this.call(event.caller);
      return;
    }
    const open = h.episodes.find((episode) => episode.key === event.key && isOpen(episode));
    const channels = event.notification?.channels ?? [];
    if (event.kind === 'fire' || (event.kind === 'repeat' && open === undefined)) {
      const episode: Episode = {
        id: h.episodes.length,
        key: event.key,
        rule: event.rule,
        severity: event.severity,
        source: event.source,
        labels: event.labels,
        firedAt: event.at,
        seenAt: now,
        channels,
        firings: [event.at],
      };
      h.episodes.push(episode);
      for (const name of channels) this.route(name, episode, 'firing', event.at, { first: true });
      return;
    }
    if (open === undefined) return;
    if (event.kind !== 'repeat' && ruleOf(this.config, open.rule) === undefined) {
      this.removed(open, event.at);
      return;
    }
    if (event.kind === 'repeat') {
      open.firings.push(event.at);
      open.latestSeverity = event.severity;
      if (acknowledged(h, open, now)) h.muted.push({ episode: open, at: now, why: 'acknowledged' });
      else {
        const { severity } = event;
        // Its page once its silence has ended; while the silence holds, a repeat like any.
        const quiet = silenced(h, open, severity, now);
        for (const name of channels) {
          // The first telling on a channel a silence kept its first firing from (its page
          // there, rule 2), whether or not a repeat waits there too.
          const mine = h.items.filter((item) => item.episode === open && item.channel === name);
          if (!quiet && this.keptPage(open, name, mine)) this.retell(open, name, mine);
          this.route(name, open, 'firing', event.at, { severity });
        }
      }
      return;
    }
    this.close(
      open,
      event.kind,
      event.at,
      channels,
      // A firing over without a told resolution ends at its rule's severity then (a rules file
      // deployed while it fired may have changed it), as the engine's untold resolution says.
      event.kind === 'end' && event.notification === undefined
        ? (this.lastRule(open.rule)?.severity ?? open.severity)
        : event.severity,
    );
  }

  /**
   * A call to `ack.did` (rule 7): the caller's channels' firing alerts that an acknowledgement
   * changes something for (their rule repeats or escalates) and none holds, acknowledged for
   * `ack.timeout`; confirmed by an `ack` message to each of the caller's channels listing them,
   * unless the caller was confirmed less than 10 minutes before. It says `no firing alerts` only
   * when none of the channel's alerts fires.
   */
  call(caller: string): void {
    const { h, now, config } = this;
    const answered = !h.confirmations.some(
      (sent) => sent.caller === caller && sent.at > now - TEN_MINUTES,
    );
    if (answered) h.confirmations.push({ caller, at: now });
    const until = now + (config.ack?.timeoutMs ?? ACK_TIMEOUT_MS);
    for (const channel of Object.values(config.channels)) {
      if (!channel.sms.includes(caller)) continue;
      const firing = h.episodes.filter(
        (episode) =>
          isOpen(episode) &&
          (episode.channels.includes(channel.name) ||
            // A step that told it, as the step named its channels then (its rule may be gone
            // from the rules file since: its alerts are firing until the engine ends them).
            h.escalations.some(
              (done) => done.episode === episode && done.notify.includes(channel.name),
            )),
      );
      const acked = firing.filter((episode) => {
        const rule = ruleOf(config, episode.rule);
        const stops = rule?.repeatMs !== undefined || (rule?.escalate ?? []).length > 0;
        return stops && !acknowledged(h, episode, now);
      });
      for (const episode of acked) h.acks.push({ episode, at: now, via: 'call', until });
      if (!answered) continue;
      this.send({
        at: now,
        channel: channel.name,
        kind: 'ack',
        lines: acked.map((episode) => ({
          key: episode.key,
          status: 'firing' as const,
          at: episode.firings[episode.firings.length - 1] as number,
          episode: episode.id,
          severity: episode.severity,
          first: false,
          escalation: false,
        })),
        sms: true,
        noneFiring: firing.length === 0,
        caller,
      });
    }
  }

  /**
   * A silence kept the episode from the channel (its first firing, or the repeats that went
   * there: a channel the rule's `notify` gained while it fired, a renamed one) and nothing of
   * it was told there since, by any message (an escalation's too): its next telling is its
   * page there (rule 2: "the SMS cap never holds its SMS"), as its first firing would have
   * been. The product draws the same boundary (a channel that never heard the alert).
   */
  untoldPage(episode: Episode, channel: string): boolean {
    const mine = this.h.items.filter(
      (item) => item.episode === episode && item.channel === channel,
    );
    return (
      mine.some((item) => item.fate?.how === 'silenced') &&
      mine.every((item) => item.fate?.how === 'silenced') &&
      !toldFiring(this.h, episode, channel)
    );
  }

  /**
   * As `untoldPage`, but what came after the silenced events while the silence held still
   * waits in its group or the channel's digest (not yet a page).
   */
  keptPage(episode: Episode, channel: string, mine: readonly Item[]): boolean {
    return (
      mine.some((item) => item.fate?.how === 'silenced') &&
      mine.every(
        (item) =>
          item.fate?.how === 'silenced' ||
          // Waiting in its group, or deferred by active hours to the channel's digest.
          (!item.first &&
            (item.fate === undefined ||
              (item.fate.how === 'deferred' && item.digested === undefined))),
      ) &&
      !toldFiring(this.h, episode, channel)
    );
  }

  /**
   * The firing a silence kept from the channel, told as the page there: its last event the
   * silence kept, at that event's severity (the firing's own, though a deploy changed its
   * rule's since: rule 2's page is its first firing at critical).
   */
  retell(episode: Episode, channel: string, mine: readonly Item[]): void {
    const kept = mine.filter((item) => item.fate?.how === 'silenced').at(-1) as Item;
    // A silence still holding that event keeps it (and it brings no group forward).
    if (silenced(this.h, episode, kept.severity, this.now)) return;
    this.route(channel, episode, 'firing', kept.at, { severity: kept.severity, first: true });
  }

  /**
   * On some channel, the episode's latest event is a firing a silence kept untold, and a
   * silence still holds it as it was (at its own severity: a deploy may have changed its
   * rule's since).
   */
  keptUntold(episode: Episode): boolean {
    const channels = new Set(
      this.h.items.filter((item) => item.episode === episode).map((item) => item.channel),
    );
    return [...channels].some((name) => {
      const last = this.h.items.filter((i) => i.episode === episode && i.channel === name).at(-1);
      return (
        last?.fate?.how === 'silenced' &&
        last.status === 'firing' &&
        silenced(this.h, episode, last.severity, this.now)
      );
    });
  }

  /** Firings a silence kept untold, and acknowledgements by call that lapsed: told again. */
  tellAgain(): void {
    const { h, now } = this;
    for (const episode of h.episodes) {
      if (!isOpen(episode)) continue;
      const latest = episode.firings[episode.firings.length - 1] as number;
      // At its latest firing event's severity (a deploy may have changed its rule's).
      const quiet = silenced(h, episode, episode.latestSeverity ?? episode.severity, now);
      for (const name of new Set(
        h.items.filter((i) => !quiet && i.episode === episode).map((i) => i.channel),
      )) {
        const mine = h.items.filter((item) => item.episode === episode && item.channel === name);
        const last = mine[mine.length - 1];
        // The firing the silence kept untold, as itself: "an alert still firing when the
        // silence ends is told then" (section 6). A first firing so told is the alert's page:
        // "the SMS cap never holds its SMS" (rule 2), or the page would be late.
        if (last?.fate?.how === 'silenced' && last.status === 'firing') {
          // Unless a silence still holds that event as it was (a deploy changed its rule's
          // severity since): then it stays kept.
          if (silenced(h, episode, last.severity, now)) continue;
          this.route(name, episode, 'firing', last.at, {
            severity: last.severity,
            first: this.untoldPage(episode, name),
            ...(last.escalation !== undefined || last.stepRetold ? { stepRetold: true } : {}),
          });
        } else if (
          last !== undefined &&
          (last.fate === undefined ||
            (last.fate.how === 'deferred' && last.digested === undefined)) &&
          last.status === 'firing' &&
          this.keptPage(episode, name, mine)
        ) {
          // A repeat that came while the silence held and waits in its group (or the channel's
          // digest, outside its active hours): "a silence is
          // applied when a message goes" (rule 5), so it goes as what it is now, the firing the
          // silence kept untold, told: the alert's page (rule 2).
          this.retell(episode, name, mine);
        }
      }
      // Told again when it lapses: "a silence is applied when a message goes" (rule 5), so a
      // telling that goes once the silence is over is told, one that goes while it holds is
      // kept untold until it ends (section 6). While a silence holds a firing of it it already
      // kept untold, the acknowledgement lapses when that silence ends (told then, with it; a
      // call meanwhile acknowledges it anew and nothing lapses): what the product decided.
      const lapsed = h.acks.filter((ack) => ack.episode === episode);
      const ack = lapsed[lapsed.length - 1];
      const kept = this.keptUntold(episode);
      if (!kept && ack?.until !== undefined && ack.until <= now && ack.lapsedTold === undefined) {
        ack.lapsedTold = now;
        // To its own channels: its rule's when it fired, and those its repeats went to since.
        const own = ownChannels(h, episode);
        // At its latest firing event's severity (a deploy may have changed its rule's).
        const severity = episode.latestSeverity ?? episode.severity;
        for (const name of own) this.route(name, episode, 'firing', latest, { severity });
      }
    }
  }

  /** Escalation steps due: counted from the first message that told the alert's own channels. */
  escalate(): void {
    const { h, now, config } = this;
    for (const episode of h.episodes) {
      const steps = ruleOf(config, episode.rule)?.escalate ?? [];
      if (!isOpen(episode) || steps.length === 0) continue;
      // A silence matches it as the step would tell it: at its latest firing's severity (a
      // deploy may have changed its rule's since it fired).
      const severity = episode.latestSeverity ?? episode.severity;
      if (acknowledged(h, episode, now) || silenced(h, episode, severity, now)) continue;
      // Its own channels now: a channel renamed while it fired is its own under the new name.
      const own = ownChannels(h, episode);
      const told = h.messages.find(
        (message) =>
          (message.kind === 'alerts' || message.kind === 'digest') &&
          own.has(message.channel) &&
          message.lines.some((line) => line.episode === episode.id && line.status === 'firing'),
      );
      if (told === undefined) continue;
      const lapsed = h.acks.filter((ack) => ack.episode === episode && ack.until !== undefined);
      const resume = lapsed.reduce((at, ack) => Math.max(at, ack.until ?? 0), 0);
      // Its latest firing event, at that event's severity.
      const latest = episode.firings[episode.firings.length - 1] as number;
      for (let index = 0; index < steps.length; index += 1) {
        if (h.escalations.some((done) => done.episode === episode && done.step === index)) continue;
        const step = steps[index] as { afterMs: number; notify: readonly string[] };
        if (Math.max(told.at + step.afterMs, resume) > now) break;
        h.escalations.push({ episode, step: index, at: now, notify: step.notify });
        for (const name of step.notify) {
          const channel = config.channels[name];
          if (channel === undefined) continue;
          if (!activeAt(channel, now)) {
            this.route(name, episode, 'firing', latest, { escalation: index, severity });
            continue;
          }
          const id = `${name}\u0000${index}`;
          const line = linesOf(
            [
              {
                id: -1,
                channel: name,
                episode,
                status: 'firing',
                at: latest,
                arrival: now,
                severity,
                first: false,
              },
            ],
            () => true,
          );
          const message = this.escalations.get(id);
          if (message === undefined) {
            this.escalations.set(id, {
              at: now,
              channel: name,
              kind: 'escalation',
              lines: line,
              group: String(index),
              sms: false,
            });
          } else (message.lines as Line[]).push(...line);
        }
      }
    }
  }

  /** When a group's held items go: after `wait` when it starts afresh, else at its interval. */
  send(message: ModelMessage): void {
    this.h.messages.push(message);
  }
}

/**
 * Runs the reference notifier over a timeline: at each tick, the rules file's change, people's
 * actions, the engine's events (in the order the engine decided them), what silences and lapsed
 * acknowledgements owe, escalation steps, then each channel's groups, digests and SMS cap.
 */
export function runModel(concrete: Concrete): History {
  const h = emptyHistory();
  let previous: Config | undefined;
  let nextEvent = 0;
  let nextAction = 0;
  for (const now of concrete.ticks) {
    const config = configAt(concrete, now);
    const step = new Step(h, config, now, (name) => {
      let found: RuleConfig | undefined;
      for (const item of concrete.configs) {
        if (item.fromMs <= now) found = ruleOf(item.config, name) ?? found;
      }
      return found;
    });
    if (previous !== undefined && previous !== config) step.changeChannels(previous);
    previous = config;
    for (let item = concrete.actions[nextAction]; item !== undefined && item.at <= now; ) {
      step.act(item.action);
      nextAction += 1;
      item = concrete.actions[nextAction];
    }
    for (let event = concrete.events[nextEvent]; event !== undefined && event.at <= now; ) {
      step.take(event);
      nextEvent += 1;
      event = concrete.events[nextEvent];
    }
    const since = concrete.configs.find((item) => item.config === config)?.fromMs ?? now;
    step.retire(concrete.polls, since);
    step.tellAgain();
    step.escalate();
    for (const channel of Object.values(config.channels)) channelStep(step, channel);
  }
  return h;
}
