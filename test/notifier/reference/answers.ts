import type { Outbound } from '../../../shared/notifier/types';
import type { History, ModelMessage } from './history';
import { MINUTE, START } from './timeline';

/**
 * The contract's questions, asked of a run's messages: who was told what, when, and how often.
 * Message boundaries are where two honest notifiers may differ (which alerts share a message,
 * which of a step's messages the cap let carry an SMS), so the answers are per alert line, and
 * SMS are counted per channel and minute. Times are minutes from the timeline's start.
 */
export interface Answers {
  /** `channel t=M tell|escalation key status ev=M [fired=M]`, one per alert line, sorted. */
  readonly told: readonly string[];
  /** `channel t=M sms=N`: SMS sent that minute (acknowledgement confirmations apart). */
  readonly sms: readonly string[];
  /** `channel t=M ack [keys] none|some`. */
  readonly acks: readonly string[];
}

const minute = (ms: number) => String(Math.round((ms - START) / MINUTE));
const at = (iso: string) => minute(Date.parse(iso));

function smsCounts(entries: readonly { channel: string; at: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const { channel, at: when } of entries) {
    const key = `${channel} t=${when}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key} sms=${count}`).sort();
}

export function productAnswers(outbound: readonly Outbound[]): Answers {
  const told: string[] = [];
  const acks: string[] = [];
  const sms: { channel: string; at: string }[] = [];
  for (const { message } of outbound) {
    const when = at(message.at);
    if (message.kind === 'ack') {
      const keys = message.alerts.map((alert) => alert.key).sort();
      const none = message.sms?.includes('no firing alerts') ?? message.text.includes('no firing');
      acks.push(`${message.channel} t=${when} ack [${keys.join(' ')}] ${none ? 'none' : 'some'}`);
      continue;
    }
    if (message.sms !== null) sms.push({ channel: message.channel, at: when });
    const kind = kindOf(message.kind);
    for (const alert of message.alerts) {
      const fired = alert.firedAt === undefined ? '' : ` fired=${at(alert.firedAt)}`;
      told.push(
        `${message.channel} t=${when} ${kind} ${alert.key} ${alert.status} ev=${at(alert.at)}${fired}`,
      );
    }
  }
  return { told: told.sort(), sms: smsCounts(sms), acks: acks.sort() };
}

/**
 * Alerts messages, digests (active hours', the SMS cap's) and a renamed channel's handover all
 * tell alerts: which kind carries a line is a boundary. An escalation is its own question.
 */
function kindOf(kind: string): string {
  return kind === 'escalation' ? 'escalation' : 'tell';
}

export function modelAnswers(history: History): Answers {
  const told: string[] = [];
  const acks: string[] = [];
  const sms: { channel: string; at: string }[] = [];
  for (const message of history.messages as readonly ModelMessage[]) {
    const when = minute(message.at);
    if (message.kind === 'ack') {
      const keys = message.lines.map((line) => line.key).sort();
      acks.push(
        `${message.channel} t=${when} ack [${keys.join(' ')}] ${message.noneFiring ? 'none' : 'some'}`,
      );
      continue;
    }
    if (message.sms) sms.push({ channel: message.channel, at: when });
    for (const line of message.lines) {
      const fired = line.firedAt === undefined ? '' : ` fired=${minute(line.firedAt)}`;
      told.push(
        `${message.channel} t=${when} ${kindOf(message.kind)} ${line.key} ${line.status} ev=${minute(line.at)}${fired}`,
      );
    }
  }
  return { told: told.sort(), sms: smsCounts(sms), acks: acks.sort() };
}

/** Where two runs' answers differ, readable: each answer only one of them gave. */
export function differences(product: Answers, model: Answers): string | undefined {
  const out: string[] = [];
  for (const question of ['told', 'acks', 'sms'] as const) {
    const left = [...product[question]];
    const right = [...model[question]];
    for (const answer of [...left]) {
      const index = right.indexOf(answer);
      if (index >= 0) {
        right.splice(index, 1);
        left.splice(left.indexOf(answer), 1);
      }
    }
    for (const answer of left) out.push(`  product only: ${answer}`);
    for (const answer of right) out.push(`  model only:   ${answer}`);
  }
  return out.length === 0 ? undefined : out.join('\n');
}
