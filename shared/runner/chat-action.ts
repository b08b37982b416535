import { decodeChatPress } from '../notifier/chat';
import { AckError, SilenceError } from '../notifier/errors';
import { acknowledge, addSilence } from '../notifier/people';
import { describeMatchers, makeSilence } from '../notifier/silence';
import type { NotifierStore } from '../ports/notifier';
import { changeNotifier } from './change-notifier';

/** How long the Silence 1h button silences. */
export const CHAT_SILENCE_MS = 3_600_000;

/**
 * What a chat button sends the chat-action function (`infra/chat.ts` writes the command):
 * `{"ack": TARGET}` or `{"silence": TARGET}`, TARGET the message's `ackTarget` or
 * `silenceTarget` (`notifier/chat.ts`), which also names the channel the message went to.
 */
export interface ChatActionRequest {
  readonly action: 'ack' | 'silence';
  readonly target: string;
}

/** The answer the chat service shows in the thread, and whether anything changed. */
export interface ChatActionAnswer {
  readonly ok: boolean;
  readonly text: string;
}

function readRequest(input: unknown): ChatActionRequest | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  if (typeof record.ack === 'string') return { action: 'ack', target: record.ack };
  if (typeof record.silence === 'string') return { action: 'silence', target: record.silence };
  return undefined;
}

/** A channel name as the author's text: printable, bounded. */
function channelName(value: string | undefined): string {
  const name = value?.replace(/[^\p{L}\p{N}_.-]/gu, '').slice(0, 100);
  return name === undefined || name === '' ? 'a telealert channel' : name;
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
  const press = request === undefined ? undefined : decodeChatPress(request.target);
  if (request === undefined || press === undefined) {
    return { ok: false, text: 'telealert: this button carries no alert to act on' };
  }
  const { target } = press;
  const channel = channelName(press.channel);
  // The service gives the function no presser (docs/chat.md): the channel stands for them.
  const by = `chat button in ${channel}`;
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
      comment: `Silence 1h from chat (${channel})`,
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
