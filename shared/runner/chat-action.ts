import { decodeChatTarget } from '../notifier/chat';
import { AckError, SilenceError } from '../notifier/errors';
import { acknowledge, addSilence } from '../notifier/people';
import { describeMatchers, makeSilence } from '../notifier/silence';
import type { NotifierStore } from '../ports/notifier';
import { changeNotifier } from './change-notifier';

/** How long the Silence 1h button silences. */
export const CHAT_SILENCE_MS = 3_600_000;

/**
 * What a chat button sends the chat-action function (`infra/chat.ts` writes the command):
 * the action and the message's `ackTarget` or `silenceTarget` (`notifier/chat.ts`).
 */
export interface ChatActionRequest {
  readonly action: 'ack' | 'silence';
  readonly target: string;
  /** The telealert channel the message went to. */
  readonly channel?: string;
  /** Who pressed the button, when the service gives it; else the channel stands for them. */
  readonly by?: string;
}

/** The answer the chat service shows in the thread, and whether anything changed. */
export interface ChatActionAnswer {
  readonly ok: boolean;
  readonly text: string;
}

function readRequest(input: unknown): ChatActionRequest | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  if (record.action !== 'ack' && record.action !== 'silence') return undefined;
  if (typeof record.target !== 'string') return undefined;
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 200) : undefined;
  const channel = text(record.channel);
  const by = text(record.by);
  return {
    action: record.action,
    target: record.target,
    ...(channel === undefined ? {} : { channel }),
    ...(by === undefined ? {} : { by }),
  };
}

/**
 * A button's press applied to the notifier's state exactly as `telealert ack` and
 * `telealert silence add --for 1h` apply theirs (`changeNotifier`: conditional on the state's
 * revision, redone when a notifier step wrote meanwhile). Never throws for what the press
 * asked: the answer says what happened, for the thread.
 */
export async function chatAction(
  store: NotifierStore,
  input: unknown,
  nowMs: number,
): Promise<ChatActionAnswer> {
  const request = readRequest(input);
  const target = request === undefined ? undefined : decodeChatTarget(request.target);
  if (request === undefined || target === undefined) {
    return { ok: false, text: 'telealert: this button carries no alert to act on' };
  }
  const by = request.by ?? `chat button in ${request.channel ?? 'a telealert channel'}`;
  try {
    if (request.action === 'ack') {
      if ('matchers' in target)
        return { ok: false, text: 'telealert: not an alert to acknowledge' };
      const { keys } = await changeNotifier(store, (state) =>
        acknowledge(state, target, { by, at: nowMs, via: 'chat' }),
      );
      return {
        ok: true,
        text: `telealert: acknowledged ${keys.join(', ')} (by ${by}): no repeats or escalation until it resolves`,
      };
    }
    if (!('matchers' in target)) return { ok: false, text: 'telealert: not a silence' };
    const silence = makeSilence({
      matchers: target.matchers,
      startsAt: nowMs,
      endsAt: nowMs + CHAT_SILENCE_MS,
      comment: `Silence 1h from chat${request.channel === undefined ? '' : ` (${request.channel})`}`,
      createdBy: by,
    });
    await changeNotifier(store, (state) => ({ state: addSilence(state, silence) }));
    return {
      ok: true,
      text: `telealert: silenced ${describeMatchers(silence)} for 1h (silence ${silence.id}, by ${by}); telealert silence expire ${silence.id} ends it`,
    };
  } catch (error) {
    if (error instanceof AckError || error instanceof SilenceError) {
      return { ok: false, text: `telealert: ${error.message}` };
    }
    throw error;
  }
}
