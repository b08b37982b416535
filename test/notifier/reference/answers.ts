import type { Outbound } from '../../../shared/notifier/types';
import type { History } from './history';
import { MINUTE, START } from './timeline';

/**
 * The contract's questions, asked of a run's messages: who was told what, when, and how often.
 * Message boundaries are where two honest notifiers may differ: which alerts share a message,
 * which kind of message carries a line (an alerts message, a digest, a handover), and which of
 * one minute's messages the SMS cap lets carry an SMS (so which alerts the cap's digest
 * retells). So the answers are per alert line, SMS are counted per channel and minute, and of
 * the cap's digest only when it goes and that it tells each alert's latest status (rule 3).
 * Times are minutes from the timeline's start.
 */
export interface Answers {
  /** `channel t=M tell|escalation key firing|resolved ev=M [fired=M]`, a line each, sorted. */
  readonly told: readonly string[];
  /** `channel t=M sms=N`: SMS sent that minute (acknowledgement confirmations apart). */
  readonly sms: readonly string[];
  /** `channel t=M ack [keys] none|some`. */
  readonly acks: readonly string[];
  /** `channel t=M recap`, and a line per alert it tells other than as last told. */
  readonly recaps: readonly string[];
}

/** One message as the questions see it. */
interface Seen {
  readonly channel: string;
  readonly at: number;
  readonly kind: 'tell' | 'escalation' | 'ack' | 'recap';
  readonly lines: readonly {
    readonly key: string;
    readonly status: string;
    readonly at: number;
    readonly firedAt?: number;
  }[];
  readonly sms: boolean;
  readonly none?: boolean;
}

const minute = (ms: number) => String(Math.round((ms - START) / MINUTE));

/**
 * A resolution's own time and its firing's (rule 3). A firing line's own time is a boundary:
 * told again after a silence or an acknowledgement's timeout, it may carry the firing's time
 * or its latest repeat's.
 */
function times(line: Seen['lines'][number]): string {
  if (line.status !== 'resolved') return '';
  const fired = line.firedAt === undefined ? '' : ` fired=${minute(line.firedAt)}`;
  return ` ev=${minute(line.at)}${fired}`;
}

function answers(messages: readonly Seen[]): Answers {
  const told: string[] = [];
  const acks: string[] = [];
  const recaps: string[] = [];
  const sms = new Map<string, number>();
  /** The latest status told, by channel and key. */
  const latest = new Map<string, string>();
  for (const message of messages) {
    const head = `${message.channel} t=${minute(message.at)}`;
    if (message.kind === 'ack') {
      const keys = message.lines.map((line) => line.key).sort();
      acks.push(`${head} ack [${keys.join(' ')}] ${message.none ? 'none' : 'some'}`);
      continue;
    }
    if (message.sms) sms.set(head, (sms.get(head) ?? 0) + 1);
    if (message.kind === 'recap') {
      recaps.push(`${head} recap`);
      for (const line of message.lines) {
        const last = latest.get(`${message.channel} ${line.key}`);
        if (last !== line.status)
          recaps.push(`${head} recap ${line.key} ${line.status}, last told ${last}`);
      }
      continue;
    }
    for (const line of message.lines) {
      latest.set(`${message.channel} ${line.key}`, line.status);
      told.push(`${head} ${message.kind} ${line.key} ${line.status}${times(line)}`);
    }
  }
  return {
    told: told.sort(),
    sms: [...sms].map(([head, count]) => `${head} sms=${count}`).sort(),
    acks: acks.sort(),
    recaps: recaps.sort(),
  };
}

/** The product's messages: the cap's digest is the digest that delivers no event. */
export function productAnswers(outbound: readonly Outbound[]): Answers {
  return answers(
    outbound.map(({ message, delivers }): Seen => {
      const kind =
        message.kind === 'ack'
          ? 'ack'
          : message.kind === 'escalation'
            ? 'escalation'
            : message.kind === 'digest' && delivers.length === 0
              ? 'recap'
              : 'tell';
      return {
        channel: message.channel,
        at: Date.parse(message.at),
        kind,
        lines: message.alerts.map((alert) => ({
          key: alert.key,
          status: alert.status,
          at: Date.parse(alert.at),
          ...(alert.firedAt === undefined ? {} : { firedAt: Date.parse(alert.firedAt) }),
        })),
        sms: message.sms !== null && kind !== 'ack',
        none: message.sms?.includes('no firing alerts') ?? message.text.includes('no firing'),
      };
    }),
  );
}

export function modelAnswers(history: History): Answers {
  return answers(
    history.messages.map(
      (message): Seen => ({
        channel: message.channel,
        at: message.at,
        kind:
          message.kind === 'ack' || message.kind === 'escalation' || message.kind === 'recap'
            ? message.kind
            : 'tell',
        lines: message.lines,
        sms: message.sms && message.kind !== 'ack',
        ...(message.noneFiring === undefined ? {} : { none: message.noneFiring }),
      }),
    ),
  );
}

/** Where two runs' answers differ, readable: each answer only one of them gave. */
export function differences(product: Answers, model: Answers): string | undefined {
  const out: string[] = [];
  for (const question of ['told', 'acks', 'sms', 'recaps'] as const) {
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
